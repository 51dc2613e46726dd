import type { Request } from 'express';
import type { OpenApiDocument, OperationInfo } from '../../contracts/operations';
import { AppError } from '../../core/shared/problems';

// Content negotiation, from the document: an operation answers 200 in the media types its `responses.200.content`
// lists, the first being the default. Only an operation that lists several negotiates; the others answer as
// they always did, whatever Accept says.

/** The media types of the operation's 200 answer, in the document's order. */
export function answerTypes(doc: OpenApiDocument, op: OperationInfo): string[] {
  let response = doc.paths[op.path]?.[op.method.toLowerCase()]?.responses?.['200'];
  const ref: unknown = response?.$ref;
  if (typeof ref === 'string') response = (doc.components as { responses?: Record<string, any> } | undefined)?.responses?.[ref.split('/').pop()!];
  return Object.keys(response?.content ?? {});
}

/** The offered type the Accept header prefers (q-values and wildcards count; no header takes the first); else 406. */
export function negotiate(req: Request, offered: string[]): string {
  const chosen = req.accepts(offered);
  if (chosen === false) {
    throw new AppError('not-acceptable', `This resource is offered as ${offered.join(', ')}; the Accept header names none of them`, { available: offered });
  }
  return chosen;
}
