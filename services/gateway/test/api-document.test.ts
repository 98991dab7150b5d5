import { expect } from 'chai';
import { ERROR_CATALOGUE, ERROR_CODES, INGEST_OPERATIONS, failuresOf, operationId } from '@spoor/schemas';
import { describeApi } from '../src/index.js';

// Issue 20, item 2: the OpenAPI document's error responses are generated from the error
// catalogue, and the ingest operations are documented from the Operation objects ingest serves.

type Doc = {
  paths: Record<
    string,
    Record<
      string,
      {
        operationId: string;
        requestBody?: { content: Record<string, unknown> };
        responses: Record<string, { description: string; content?: Record<string, { schema: { $ref?: string } }> }>;
      }
    >
  >;
};

describe('OpenAPI document and the error catalogue', () => {
  const doc = describeApi('v0.0.0-0-gtest') as unknown as Doc;
  const operations = Object.entries(doc.paths).flatMap(([path, item]) =>
    Object.entries(item)
      .filter(([m]) => m !== 'options')
      .map(([method, op]) => ({ path, method, op })),
  );

  it('documents every error response with the descriptions of catalogued codes of that status', () => {
    expect(operations.length).to.be.greaterThan(60);
    let checked = 0;
    for (const { path, method, op } of operations) {
      for (const [status, response] of Object.entries(op.responses)) {
        if (Number(status) < 400) continue;
        const parts = response.description.split('; or ');
        for (const part of parts) {
          const codes = ERROR_CODES.filter(
            (c) => ERROR_CATALOGUE[c].status === Number(status) && ERROR_CATALOGUE[c].description === part,
          );
          expect(codes, `${method.toUpperCase()} ${path} ${status}: "${part}" is no catalogued ${status}`).to.not.be
            .empty;
          checked++;
        }
        const schema = response.content?.['application/json']?.schema.$ref;
        expect(schema, `${method} ${path} ${status}`).to.equal(
          status === '422' ? '#/components/schemas/HTTPValidationError' : '#/components/schemas/ErrorBody',
        );
      }
    }
    expect(checked).to.be.greaterThan(200);
  });

  it('documents 422 everywhere, 401 on every secured operation and 415 on every body', () => {
    for (const { path, method, op } of operations) {
      expect(op.responses, `${method} ${path}`).to.have.property('422');
      if ((op as { security?: unknown[] }).security?.length)
        expect(op.responses, `${method} ${path}`).to.have.property('401');
      if (op.requestBody) expect(op.responses, `${method} ${path}`).to.include.keys('400', '413', '415');
    }
  });

  it('documents the two ingest operations from the Operation objects the ingest service mounts', () => {
    expect(INGEST_OPERATIONS.map((o) => o.path)).to.deep.equal(['/v1/event', '/v1/event/batch']);
    for (const op of INGEST_OPERATIONS) {
      const documented = doc.paths[op.path]![op.method]!;
      expect(documented.operationId).to.equal(operationId(op.method, op.path));
      expect(Object.keys(documented.requestBody!.content)).to.deep.equal(['application/json', 'text/plain']);
      const statuses = [...new Set(failuresOf(op).map((c) => String(ERROR_CATALOGUE[c].status)))].sort();
      expect(
        Object.keys(documented.responses)
          .filter((s) => s !== '200')
          .sort(),
      ).to.deep.equal(statuses);
      expect(documented.responses['403']!.description).to.equal(ERROR_CATALOGUE.origin_mismatch.description);
      expect(documented.responses['404']!.description).to.equal(ERROR_CATALOGUE.unknown_project.description);
    }
  });
});
