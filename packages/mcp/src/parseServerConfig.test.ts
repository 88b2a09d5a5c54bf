import { describe, expect, it } from 'vitest';
import { McpConfigError } from './McpConfigError.js';
import { DEFAULT_MCP_DEADLINE_MS } from './McpServerConfig.js';
import { McpServerRegistry } from './McpServerRegistry.js';
import { parseServerConfig } from './parseServerConfig.js';

const stdio = (id: string, extra: object = {}) => ({ id, transport: { type: 'stdio', command: 'node', args: ['server.js'] }, ...extra });

function problemsOf(input: unknown): readonly string[] {
  try {
    parseServerConfig(input);
  } catch (error) {
    expect(McpConfigError.is(error)).toBe(true);
    expect(error).toBeInstanceOf(McpConfigError);
    return (error as McpConfigError).problems;
  }
  throw new Error('expected the configuration to be refused');
}

describe('parseServerConfig', () => {
  it('reads a JSON file with stdio and http servers and fills in the defaults', () => {
    const servers = parseServerConfig(
      JSON.stringify({
        servers: [
          {
            id: 'files',
            name: 'Files',
            transport: { type: 'stdio', command: 'node', args: ['fs.js'], env: { ROOT: '/srv' }, cwd: '/tmp' },
            deadlineMs: 5000,
            requiresApproval: true,
          },
          {
            id: 'github',
            transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'a' }, bearerTokenEnv: 'GITHUB_TOKEN' },
          },
        ],
      }),
    );
    expect(servers).toEqual([
      {
        id: 'files',
        name: 'Files',
        transport: { type: 'stdio', command: 'node', args: ['fs.js'], env: { ROOT: '/srv' }, cwd: '/tmp' },
        deadlineMs: 5000,
        requiresApproval: true,
        trustAnnotations: false,
      },
      {
        id: 'github',
        name: 'github',
        transport: { type: 'http', url: 'https://mcp.example.com/mcp', headers: { 'X-Team': 'a' }, bearerTokenEnv: 'GITHUB_TOKEN' },
        deadlineMs: DEFAULT_MCP_DEADLINE_MS,
        requiresApproval: false,
        trustAnnotations: false,
      },
    ]);
    expect(DEFAULT_MCP_DEADLINE_MS).toBe(20_000);
    expect(Object.isFrozen(servers)).toBe(true);
    expect(Object.isFrozen(servers[0]?.transport)).toBe(true);
  });

  it('names the path and the rule of a bad id', () => {
    const problems = problemsOf({ servers: [stdio('a'), stdio('b'), stdio('Bad-Id')] });
    expect(problems).toEqual(['servers[2].id must match ^[a-z0-9_]{1,32}$']);
    expect(() => parseServerConfig({ servers: [stdio('a'), stdio('b'), stdio('Bad-Id')] })).toThrow(
      'servers[2].id must match ^[a-z0-9_]{1,32}$',
    );
  });

  it('refuses an id longer than 32 characters', () => {
    expect(problemsOf({ servers: [stdio('a'.repeat(33))] })).toEqual(['servers[0].id must match ^[a-z0-9_]{1,32}$']);
    expect(parseServerConfig({ servers: [stdio('a'.repeat(32))] })).toHaveLength(1);
  });

  it('refuses duplicate ids, naming both places', () => {
    expect(problemsOf({ servers: [stdio('x'), stdio('y'), stdio('x')] })).toEqual([
      'servers[2].id must be unique ("x" is also servers[0].id)',
    ]);
  });

  it('lists every problem of a file at once', () => {
    const problems = problemsOf({
      servers: [
        { id: 'ok', transport: { type: 'stdio' } },
        { id: 'web', transport: { type: 'http', url: 'ftp://x' }, deadlineMs: 0, extra: true },
        { id: 'sock', transport: { type: 'socket' } },
      ],
    });
    expect(problems).toEqual(
      expect.arrayContaining([
        'servers[0].transport.command is required',
        'servers[1].transport.url must use http: or https:, not ftp:',
        'servers[1].deadlineMs must be from 1 to 3600000',
        'servers[1].extra is not a known field',
        'servers[2].transport.type must be one of "stdio", "http"',
      ]),
    );
    expect(problems).toHaveLength(5);
  });

  it('never takes a credential in the file', () => {
    expect(
      problemsOf({ servers: [{ id: 'gh', transport: { type: 'http', url: 'https://h/mcp', headers: { authorization: 'Bearer abc' } } }] }),
    ).toEqual([
      'servers[0].transport.headers.authorization must not be set here; name the environment variable that holds the token in bearerTokenEnv',
    ]);
    expect(problemsOf({ servers: [{ id: 'gh', transport: { type: 'http', url: 'https://u:p@h/mcp' } }] })).toEqual([
      'servers[0].transport.url must not contain credentials; name the variable that holds the token in bearerTokenEnv',
    ]);
    expect(
      problemsOf({ servers: [{ id: 'gh', transport: { type: 'http', url: 'https://h/mcp', bearerTokenEnv: 'not a name' } }] }),
    ).toEqual(['servers[0].transport.bearerTokenEnv must be an environment variable name matching ^[A-Za-z_][A-Za-z0-9_]*$']);
  });

  it('refuses what is not a configuration at all', () => {
    expect(problemsOf('{ nope')).toEqual([expect.stringMatching(/^configuration must be valid JSON/)]);
    expect(problemsOf(42)).toEqual(['configuration must be an object']);
    expect(problemsOf({ servers: 'x' })).toEqual(['servers must be an array']);
    expect(problemsOf({})).toEqual(['servers is required']);
    expect(problemsOf({ servers: [stdio('a', { deadlineMs: 1.5 })] })).toEqual(['servers[0].deadlineMs must be a whole number']);
    expect(problemsOf({ servers: [stdio('a', { requiresApproval: 'yes' })] })).toEqual(['servers[0].requiresApproval must be a boolean']);
  });

  it('the error message names the problems', () => {
    const error = (() => {
      try {
        parseServerConfig({ servers: [stdio('A'), stdio('B')] });
      } catch (e) {
        return e as Error;
      }
      return undefined;
    })();
    expect(error?.message).toBe(
      'MCP server configuration refused (2 problems): servers[0].id must match ^[a-z0-9_]{1,32}$; servers[1].id must match ^[a-z0-9_]{1,32}$',
    );
  });

  it('McpServerRegistry.create checks configurations made in code the same way', () => {
    const [a] = parseServerConfig({ servers: [stdio('a')] });
    expect(() => McpServerRegistry.create([a!, a!])).toThrow('servers[1].id must be unique ("a" is also servers[0].id)');
    expect(() => McpServerRegistry.create([{ ...a!, id: 'A' }])).toThrow(McpConfigError);
    expect(() => McpServerRegistry.create([{ ...a!, deadlineMs: -1 }])).toThrow('servers[0].deadlineMs must be from 1 to 3600000');
  });

  it('McpConfigError refuses to name no problem', () => {
    expect(() => new McpConfigError([])).toThrow('McpConfigError.problems must name at least one problem');
  });
});
