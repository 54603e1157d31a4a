import { readFileSync } from 'node:fs';
import { Validator } from '@seriousme/openapi-schema-validator';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsPlugin from 'ajv-formats';
import { parse } from 'yaml';

/**
 * docs/openapi.yaml as the tests use it: the operations it declares, and a checker that holds a
 * real answer (status, headers, body) against the documented one. Every answer the api-docs tests
 * get goes through `checkAnswer`, which also records which (operation, status) pairs were seen so
 * each test file can require that every documented status of its operations was exercised.
 */

export const OPENAPI_FILE = new URL('../../docs/openapi.yaml', import.meta.url);
const DOC_ID = 'https://footfall.invalid/openapi.yaml';
export const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'] as const;

interface HeaderObject {
  required?: boolean;
  $ref?: string;
}
interface ResponseObject {
  $ref?: string;
  headers?: Record<string, HeaderObject>;
  content?: Record<string, unknown>;
}
interface OperationObject {
  tags?: string[];
  'x-footfall-access'?: string;
  requestBody?: { content: Record<string, unknown> };
  responses: Record<string, ResponseObject>;
}
/** The parts of an OpenAPI document the tests read (the document is checked against the 3.1 schema first). */
export interface ApiDoc {
  paths: Record<string, Partial<Record<(typeof METHODS)[number], OperationObject>>>;
  components: Record<string, Record<string, unknown>>;
}

/** One documented operation, e.g. `GET /api/v1/sites/{site}`. */
export interface Operation {
  key: string;
  method: string;
  path: string;
  tag: string;
  access: string | undefined;
  statuses: string[];
  op: OperationObject;
  pointer: string;
}

const escapePointer = (s: string) => s.replace(/~/g, '~0').replace(/\//g, '~1');

/** Reads, parses and checks docs/openapi.yaml against the OpenAPI 3.1 schema. */
export async function loadApiDoc(): Promise<{ doc: ApiDoc; raw: unknown; errors: unknown }> {
  const raw: unknown = parse(readFileSync(OPENAPI_FILE, 'utf8'));
  const result = await new Validator().validate(structuredClone(raw) as Parameters<Validator['validate']>[0]);
  return { doc: raw as ApiDoc, raw, errors: result.valid ? undefined : result.errors };
}

/** Every operation of the document. */
export function operations(doc: ApiDoc): Operation[] {
  const out: Operation[] = [];
  for (const [path, item] of Object.entries(doc.paths)) {
    for (const method of METHODS) {
      const op = item[method];
      if (!op) continue;
      out.push({
        key: `${method.toUpperCase()} ${path}`,
        method: method.toUpperCase(),
        path,
        tag: op.tags?.[0] ?? '',
        access: op['x-footfall-access'],
        statuses: Object.keys(op.responses),
        op,
        pointer: `#/paths/${escapePointer(path)}/${method}`,
      });
    }
  }
  return out;
}

/** `/api/v1/sites/:site` (Hono) as `/api/v1/sites/{site}` (OpenAPI); the tracker route is `/js/{site}.js`. */
export function openApiPath(honoPath: string): string {
  if (honoPath === '/js/:file') return '/js/{site}.js';
  return honoPath.replace(/:([A-Za-z_]+)/g, '{$1}');
}

const templateRegex = (path: string) =>
  new RegExp(`^${path.replace(/[.]/g, '\\.').replace(/\{[^}]+\}/g, '[^/]+')}$`);

/** Holds answers against the document and remembers which (operation, status) pairs were seen. */
export class Contract {
  readonly seen = new Set<string>();
  readonly ops: Operation[];
  readonly #ajv: Ajv2020;
  readonly #compiled = new Map<string, ValidateFunction>();

  constructor(readonly doc: ApiDoc) {
    this.ops = operations(doc);
    this.#ajv = new Ajv2020({ allErrors: true, strict: true, strictTypes: false });
    addFormatsPlugin(this.#ajv);
    // OpenAPI keywords around the schemas: known, with no meaning for validation
    this.#ajv.addVocabulary([
      'openapi',
      'jsonSchemaDialect',
      'info',
      'servers',
      'tags',
      'paths',
      'components',
    ]);
    this.#ajv.addSchema(doc as object, DOC_ID);
  }

  /** The documented operation a request hits, by method and concrete path (query string ignored). */
  operation(method: string, url: string): Operation | undefined {
    const path = url.split('?')[0]!;
    return this.ops.find((o) => o.method === method && templateRegex(o.path).test(path));
  }

  /** Validates `value` against the schema at a JSON pointer of the document; returns the problems. */
  validate(pointer: string, value: unknown): string[] {
    let fn = this.#compiled.get(pointer);
    if (!fn) {
      fn = this.#ajv.getSchema(`${DOC_ID}${pointer}`);
      if (!fn) return [`no schema at ${pointer}`];
      this.#compiled.set(pointer, fn);
    }
    if (fn(value)) return [];
    return (fn.errors ?? []).map(
      (e) => `${e.instancePath || '(root)'} ${e.message} ${JSON.stringify(e.params)}`,
    );
  }

  /** Follows a `$ref` of a response or header object to its pointer and object. */
  #resolve<T extends { $ref?: string }>(pointer: string, obj: T): { pointer: string; obj: T } {
    if (!obj.$ref) return { pointer, obj };
    const parts = obj.$ref.replace(/^#\//, '').split('/');
    let node: unknown = this.doc;
    for (const p of parts)
      node = (node as Record<string, unknown>)[p.replace(/~1/g, '/').replace(/~0/g, '~')];
    return { pointer: obj.$ref, obj: node as T };
  }

  /**
   * The problems of one answer: an undocumented operation or status, a missing required header
   * (Server-Timing on every answer), a content type or body the document does not describe.
   */
  checkAnswer(
    method: string,
    url: string,
    res: { status: number; headers: Headers },
    text: string,
    request?: unknown,
  ): string[] {
    const at = `${method} ${url} -> ${res.status}`;
    const op = this.operation(method, url);
    if (!op) return [`${at}: no documented operation`];
    const status = String(res.status);
    const documented = op.op.responses[status]
      ? status
      : op.op.responses[`${status[0]}XX`]
        ? `${status[0]}XX`
        : '';
    if (!documented) return [`${at}: status ${status} is not documented for ${op.key}`];
    this.seen.add(`${op.key} ${documented}`);
    const problems: string[] = [];
    const { pointer, obj: response } = this.#resolve(
      `${op.pointer}/responses/${documented}`,
      op.op.responses[documented]!,
    );
    if (!response.headers?.['Server-Timing']) problems.push(`${at}: Server-Timing is not documented`);
    if (!res.headers.get('server-timing')) problems.push(`${at}: no Server-Timing header`);
    for (const [name, ref] of Object.entries(response.headers ?? {})) {
      const h = this.#resolve(`${pointer}/headers/${escapePointer(name)}`, ref);
      const value = res.headers.get(name);
      if (value === null) {
        if (h.obj.required) problems.push(`${at}: required header ${name} is missing`);
        continue;
      }
      for (const p of this.validate(`${h.pointer}/schema`, value))
        problems.push(`${at}: header ${name}: ${p}`);
    }
    const content = response.content ?? {};
    const type = (res.headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();
    if (Object.keys(content).length === 0) {
      if (text !== '') problems.push(`${at}: a body where none is documented: ${text.slice(0, 200)}`);
    } else if (!(type in content)) {
      problems.push(
        `${at}: content type ${type || '(none)'} is not one of ${Object.keys(content).join(', ')}`,
      );
    } else {
      const schema = `${pointer}/content/${escapePointer(type)}/schema`;
      let body: unknown = text;
      if (type === 'application/json') {
        try {
          body = JSON.parse(text);
        } catch {
          return [...problems, `${at}: the body is not JSON: ${text.slice(0, 200)}`];
        }
      }
      for (const p of this.validate(schema, body)) problems.push(`${at}: body ${p}`);
    }
    if (request !== undefined && res.status < 300 && op.op.requestBody) {
      const schema = `${op.pointer}/requestBody/content/application~1json/schema`;
      for (const p of this.validate(schema, request)) problems.push(`${at}: the accepted request body ${p}`);
    }
    return problems;
  }

  /** Documented (operation, status) pairs of operations tagged `tags` that no answer has shown yet. */
  unseen(tags: readonly string[]): string[] {
    return this.ops
      .filter((o) => tags.includes(o.tag))
      .flatMap((o) => o.statuses.filter((s) => !s.endsWith('XX')).map((s) => `${o.key} ${s}`))
      .filter((k) => !this.seen.has(k));
  }
}

/** Splits a Server-Sent Events text into its events (comments dropped). */
export function sseEvents(text: string): { event: string; data: string }[] {
  return text
    .split(/\n\n/)
    .map((block) => {
      const lines = block.split('\n').filter((l) => l !== '' && !l.startsWith(':'));
      const field = (name: string) =>
        lines
          .filter((l) => l.startsWith(`${name}:`))
          .map((l) => l.slice(name.length + 1).replace(/^ /, ''))
          .join('\n');
      return { event: field('event') || 'message', data: field('data') };
    })
    .filter((e) => e.data !== '');
}
