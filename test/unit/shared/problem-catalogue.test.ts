import { readFileSync } from 'node:fs';
import path from 'node:path';
import { PROBLEMS, problemTypeUri, type ProblemType } from '../../../core/shared/problems';

describe('docs/problems.md', () => {
  const doc = readFileSync(path.join(__dirname, '..', '..', '..', 'docs', 'problems.md'), 'utf8');

  test.each(Object.keys(PROBLEMS) as ProblemType[])('documents %s with its status', (type) => {
    const row = doc.split('\n').find((line) => line.startsWith(`| \`${problemTypeUri(type)}\` |`));
    expect(row).toBeDefined();
    expect(row).toContain(`| ${PROBLEMS[type].status} |`);
  });

  test('documents no type the service does not have', () => {
    const documented = [...doc.matchAll(/\| `\/problems\/([a-z-]+)` \|/g)].map((m) => m[1]);
    expect(documented.sort()).toEqual(Object.keys(PROBLEMS).sort());
  });
});
