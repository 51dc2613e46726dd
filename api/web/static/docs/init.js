// /docs on the central host: Swagger UI (loaded before this module) rendering the API's OpenAPI document.
const root = document.getElementById('swagger-ui');
window.ui = window.SwaggerUIBundle({
  url: root.dataset.document,
  domNode: root,
  // No request to the public online validator: the page talks to this origin only.
  validatorUrl: null,
});
