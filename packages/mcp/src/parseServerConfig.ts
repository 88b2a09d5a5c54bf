import { z } from 'zod';
import { McpConfigError } from './McpConfigError.js';
import { DEFAULT_MCP_DEADLINE_MS, type McpServerConfig } from './McpServerConfig.js';
import { McpTransportType } from './McpTransportType.js';

const ID_PATTERN = /^[a-z0-9_]{1,32}$/;
const ENV_NAME_PATTERN = /^[A-Za-z_][A-Za-z0-9_]*$/;
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_DEADLINE_MS = 3_600_000;

const typeNames: Record<string, string> = {
  string: 'a string',
  number: 'a number',
  boolean: 'a boolean',
  array: 'an array',
  object: 'an object',
  record: 'an object',
  int: 'a whole number',
};

const nonEmpty = (what: string) => z.string().min(1, { error: `must be a non-empty ${what}` });

const stdioSchema = z.strictObject({
  type: z.literal(McpTransportType.STDIO),
  command: nonEmpty('string'),
  args: z.array(z.string()).default([]),
  env: z
    .record(z.string().regex(ENV_NAME_PATTERN, { error: `must be a variable name matching ${ENV_NAME_PATTERN.source}` }), z.string())
    .default({}),
  cwd: nonEmpty('string').optional(),
});

const httpSchema = z.strictObject({
  type: z.literal(McpTransportType.HTTP),
  url: z.string().superRefine((value, ctx) => {
    let url: URL;
    try {
      url = new URL(value);
    } catch {
      ctx.addIssue({ code: 'custom', message: 'must be an absolute http: or https: URL' });
      return;
    }
    if (url.protocol !== 'http:' && url.protocol !== 'https:') {
      ctx.addIssue({ code: 'custom', message: `must use http: or https:, not ${url.protocol}` });
    }
    if (url.username !== '' || url.password !== '') {
      ctx.addIssue({ code: 'custom', message: 'must not contain credentials; name the variable that holds the token in bearerTokenEnv' });
    }
  }),
  headers: z
    .record(z.string().regex(HEADER_NAME_PATTERN, { error: 'must be a valid HTTP header name' }), z.string())
    .default({})
    .superRefine((headers, ctx) => {
      for (const name of Object.keys(headers)) {
        if (name.toLowerCase() === 'authorization') {
          ctx.addIssue({
            code: 'custom',
            path: [name],
            message: 'must not be set here; name the environment variable that holds the token in bearerTokenEnv',
          });
        }
      }
    }),
  bearerTokenEnv: z
    .string()
    .regex(ENV_NAME_PATTERN, { error: `must be an environment variable name matching ${ENV_NAME_PATTERN.source}` })
    .optional(),
});

const serverSchema = z.strictObject({
  id: z.string().regex(ID_PATTERN, { error: `must match ${ID_PATTERN.source}` }),
  name: nonEmpty('string').optional(),
  transport: z.discriminatedUnion('type', [stdioSchema, httpSchema]),
  deadlineMs: z
    .number()
    .int()
    .min(1, { error: `must be from 1 to ${MAX_DEADLINE_MS}` })
    .max(MAX_DEADLINE_MS, { error: `must be from 1 to ${MAX_DEADLINE_MS}` })
    .default(DEFAULT_MCP_DEADLINE_MS),
  requiresApproval: z.boolean().default(false),
  trustAnnotations: z.boolean().default(false),
});

const serversSchema = z.array(serverSchema).superRefine((servers, ctx) => {
  const seen = new Map<string, number>();
  servers.forEach((server, index) => {
    const first = seen.get(server.id);
    if (first === undefined) {
      seen.set(server.id, index);
    } else {
      ctx.addIssue({ code: 'custom', path: [index, 'id'], message: `must be unique ("${server.id}" is also servers[${first}].id)` });
    }
  });
});

const fileSchema = z.strictObject({ servers: serversSchema });

type ParsedServer = z.output<typeof serverSchema>;

/**
 * Reads an MCP server configuration: the JSON text or the parsed object `{ "servers": [...] }`.
 *
 * @remarks
 * Each server has an `id` (`^[a-z0-9_]{1,32}$`, unique), an optional `name`, a `transport`
 * (`{ "type": "stdio", "command", "args"?, "env"?, "cwd"? }` or
 * `{ "type": "http", "url", "headers"?, "bearerTokenEnv"? }`), an optional `deadlineMs`
 * (default {@link DEFAULT_MCP_DEADLINE_MS}), an optional `requiresApproval` (default false) and an
 * optional `trustAnnotations` (default false: the server's tool annotations are not acted on).
 * Unknown fields are refused, so a misspelt field does not pass silently. A bearer token is never
 * part of the configuration: `bearerTokenEnv` names the environment variable it is read from when
 * connecting, and an `Authorization` header is refused. The result is frozen.
 *
 * @throws {@link McpConfigError} from `parseServerConfig` naming every problem's path and rule,
 * e.g. `servers[2].id must match ^[a-z0-9_]{1,32}$`; then no server of the input is used.
 * @public
 */
export function parseServerConfig(input: string | unknown): readonly McpServerConfig[] {
  let value: unknown = input;
  if (typeof input === 'string') {
    try {
      value = JSON.parse(input) as unknown;
    } catch (error) {
      throw new McpConfigError([`configuration must be valid JSON (${error instanceof Error ? error.message : String(error)})`]);
    }
  }
  const parsed = fileSchema.safeParse(value);
  if (!parsed.success) {
    throw new McpConfigError(formatIssues(parsed.error.issues, []));
  }
  return Object.freeze(parsed.data.servers.map(freezeServer));
}

/**
 * Checks server configurations made in code the way {@link parseServerConfig} checks a file.
 *
 * @throws McpConfigError from `McpServerRegistry.create` naming every problem's path and rule.
 * @internal
 */
export function validateServerConfigs(configs: readonly McpServerConfig[]): readonly McpServerConfig[] {
  if (!Array.isArray(configs)) {
    throw new McpConfigError(['servers must be an array']);
  }
  const parsed = serversSchema.safeParse(configs.map(toInput));
  if (!parsed.success) {
    throw new McpConfigError(formatIssues(parsed.error.issues, ['servers']));
  }
  return Object.freeze(parsed.data.map(freezeServer));
}

/** Turns a resolved config back into the input shape (undefined optionals dropped). */
function toInput(config: McpServerConfig): unknown {
  if (typeof config !== 'object' || config === null) return config;
  const transport = config.transport as unknown as Record<string, unknown> | undefined;
  const cleaned =
    typeof transport === 'object' && transport !== null
      ? Object.fromEntries(Object.entries(transport).filter(([, v]) => v !== undefined))
      : transport;
  return { ...config, transport: cleaned };
}

function freezeServer(server: ParsedServer): McpServerConfig {
  const t = server.transport;
  const transport =
    t.type === McpTransportType.STDIO
      ? Object.freeze({
          type: t.type,
          command: t.command,
          args: Object.freeze([...t.args]),
          env: Object.freeze({ ...t.env }),
          cwd: t.cwd,
        })
      : Object.freeze({
          type: t.type,
          url: t.url,
          headers: Object.freeze({ ...t.headers }),
          bearerTokenEnv: t.bearerTokenEnv,
        });
  return Object.freeze({
    id: server.id,
    name: server.name ?? server.id,
    transport,
    deadlineMs: server.deadlineMs,
    requiresApproval: server.requiresApproval,
    trustAnnotations: server.trustAnnotations,
  });
}

interface Issue {
  readonly code: string;
  readonly path: readonly PropertyKey[];
  readonly message: string;
  readonly expected?: string;
  readonly keys?: readonly string[];
  readonly options?: readonly unknown[];
  readonly input?: unknown;
}

function formatIssues(issues: readonly Issue[], prefix: readonly PropertyKey[]): string[] {
  const problems: string[] = [];
  for (const issue of issues) {
    const path = [...prefix, ...issue.path];
    switch (issue.code) {
      case 'invalid_type': {
        const missing = /received undefined$/.test(issue.message);
        const expected = issue.expected ?? 'value';
        problems.push(`${formatPath(path)} ${missing ? 'is required' : `must be ${typeNames[expected] ?? expected}`}`);
        break;
      }
      case 'unrecognized_keys':
        for (const key of issue.keys ?? []) {
          problems.push(`${formatPath([...path, key])} is not a known field`);
        }
        break;
      case 'invalid_union':
        problems.push(
          `${formatPath(path)} must be one of ${(issue.options ?? []).map((o) => JSON.stringify(o)).join(', ') || 'the known values'}`,
        );
        break;
      case 'invalid_value':
        problems.push(`${formatPath(path)} must be one of ${(issue.options ?? []).map((o) => JSON.stringify(o)).join(', ')}`);
        break;
      default:
        problems.push(`${formatPath(path)} ${issue.message}`);
    }
  }
  return problems;
}

function formatPath(path: readonly PropertyKey[]): string {
  let text = '';
  for (const part of path) {
    if (typeof part === 'number') {
      text += `[${part}]`;
    } else {
      const name = String(part);
      text += /^[A-Za-z_$][A-Za-z0-9_$]*$/.test(name) ? (text === '' ? name : `.${name}`) : `[${JSON.stringify(name)}]`;
    }
  }
  return text === '' ? 'configuration' : text;
}
