// The OpenAPI document as a reference: every operation has a summary, a description and a tag,
// every parameter, request body field and response status says what it is, and every property of
// a named component has a description (the contracts' `.describe()` texts). The checker is shown
// to find planted omissions first, so a document that passes is one it could have failed.
import { startTestApi, type TestApi } from '@osmosis/api/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  componentPropertyCoverage,
  type OpenApiDocument,
  openApiOmissions,
} from './helpers/openapi-omissions.ts';

type Document = OpenApiDocument & { tags?: { name: string; description?: string }[] };

let api: TestApi;
let doc: Document;

beforeAll(async () => {
  api = await startTestApi();
  const res = await api.request('GET', '/openapi.json');
  expect(res.status).toBe(200);
  doc = res.body as Document;
});

afterAll(async () => {
  await api?.close();
});

/** A deep copy to plant omissions in, leaving the served document alone. */
function copy(): Document {
  return structuredClone(doc);
}

describe('the OpenAPI omissions check', () => {
  it('finds each kind of planted omission', () => {
    const planted = copy();
    const runs = planted.paths['/v1/runs']!.get!;
    delete runs.summary;
    const manifest = planted.paths['/v1/runs/{name}/downloads/manifest']!.get!;
    delete manifest.description;
    const types = manifest.parameters!.find((p) => p.in === 'query' && p.name === 'types')!;
    delete types.description;
    const name = manifest.parameters!.find((p) => p.in === 'path' && p.name === 'name')!;
    name.description = ' ';
    manifest.responses!['404'] = { description: 'Default Response' };
    delete planted.components!.schemas!.RunResults!.properties!.run_name!.description;
    delete planted.components!.schemas!.Error!.properties!.error!.properties!.details!.description;

    expect(openApiOmissions(planted).sort()).toEqual(
      [
        'GET /v1/runs: no summary',
        'GET /v1/runs/{name}/downloads/manifest: no description',
        'GET /v1/runs/{name}/downloads/manifest: query parameter types has no description',
        'GET /v1/runs/{name}/downloads/manifest: path parameter name has no description',
        'GET /v1/runs/{name}/downloads/manifest: response 404 is titled "Default Response"',
        'component RunResults.run_name has no description',
        'component Error.error.details has no description',
      ].sort(),
    );
    const coverage = componentPropertyCoverage(planted);
    expect(coverage.described).toBe(coverage.total - 2);
  });

  it('finds an operation without a tag, a body field and a property nested in an array', () => {
    const planted = copy();
    delete planted.paths['/v1/me']!.get!.tags;
    const body = planted.paths['/v1/secrets/{name}']!.put!.requestBody!.content!['application/json']!.schema!;
    delete body.properties!.value!.description;
    const items = planted.components!.schemas!.RunInfo!.properties!.image_pins!.items!;
    delete items.properties!.digest!.description;
    expect(openApiOmissions(planted)).toEqual([
      'GET /v1/me: no tag',
      'PUT /v1/secrets/{name}: body.value has no description',
      'component RunInfo.image_pins[].digest has no description',
    ]);
  });
});

describe('the served OpenAPI document', () => {
  it('leaves nothing undescribed: operations, parameters, bodies, responses, component properties', () => {
    expect(openApiOmissions(doc)).toEqual([]);
    const coverage = componentPropertyCoverage(doc);
    expect(coverage.total).toBeGreaterThan(500);
    expect(coverage.described).toBe(coverage.total);
  });

  it('documents the download query parameters', () => {
    const query = (path: string) =>
      Object.fromEntries(
        (doc.paths[path]!.get!.parameters ?? [])
          .filter((p) => p.in === 'query')
          .map((p) => [p.name, p.description]),
      );
    expect(query('/v1/runs/{name}/downloads/manifest').types).toMatch(/summary, results, artifacts/);
    const file = query('/v1/runs/{name}/downloads/file');
    expect(file.path).toMatch(/manifest/);
    expect(file.at).toMatch(/generated_at/);
    // the file itself and its ranges are answers of their own, not "Default Response"
    const responses = doc.paths['/v1/runs/{name}/downloads/file']!.get!.responses!;
    expect(Object.keys(responses)).toEqual(expect.arrayContaining(['200', '206', '404', '416']));
  });

  it('groups operations by tags the document describes', () => {
    const described = new Map((doc.tags ?? []).map((t) => [t.name, t.description]));
    const used = new Set(
      Object.values(doc.paths).flatMap((ops) => Object.values(ops).flatMap((op) => op.tags ?? [])),
    );
    for (const tag of ['runs', 'benchmarks', 'secrets', 'results', 'members', 'tokens'])
      expect(used).toContain(tag);
    for (const tag of used) expect(described.get(tag), tag).toMatch(/\w/);
  });
});
