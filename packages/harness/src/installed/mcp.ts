// The task's `[[environment.mcp_servers]]` as Harbor 0.9 reads them (models/task/config.py
// MCPServerConfig: name; transport sse | streamable-http | stdio, `http` meaning
// streamable-http; url for the network transports, command and args for stdio) and the config
// text each CLI reads them from. A task is the benchmark author's input: an entry that is not a
// valid server is left out (and said so), and every value is written through a JSON or TOML
// string encoder, never spliced into a file or a command.

export type McpTransport = 'sse' | 'streamable-http' | 'stdio';

export interface McpServer {
  name: string;
  transport: McpTransport;
  url?: string;
  command?: string;
  args: string[];
}

const NAME = /^[A-Za-z0-9_.-]{1,64}$/;

/** The valid servers, and one line per entry left out saying why. */
export function parseMcpServers(raw: readonly unknown[] | undefined): {
  servers: McpServer[];
  skipped: string[];
} {
  const servers: McpServer[] = [];
  const skipped: string[] = [];
  for (const [i, entry] of (raw ?? []).entries()) {
    const e = entry as Record<string, unknown>;
    const where = `environment.mcp_servers[${i}]`;
    if (typeof e?.name !== 'string' || !NAME.test(e.name)) {
      skipped.push(`${where}: name must be 1-64 letters, digits, '_', '.' or '-'`);
      continue;
    }
    const t = e.transport ?? 'sse';
    const transport = t === 'http' ? 'streamable-http' : t;
    if (transport !== 'sse' && transport !== 'streamable-http' && transport !== 'stdio') {
      skipped.push(`${where} (${e.name}): transport must be sse, streamable-http (http) or stdio`);
      continue;
    }
    const args =
      Array.isArray(e.args) && e.args.every((a) => typeof a === 'string') ? (e.args as string[]) : [];
    if (transport === 'stdio') {
      if (typeof e.command !== 'string' || e.command === '') {
        skipped.push(`${where} (${e.name}): 'command' is required for transport 'stdio'`);
        continue;
      }
      servers.push({ name: e.name, transport, command: e.command, args });
    } else {
      if (typeof e.url !== 'string' || !/^https?:\/\//i.test(e.url)) {
        skipped.push(`${where} (${e.name}): 'url' (http or https) is required for transport '${transport}'`);
        continue;
      }
      servers.push({ name: e.name, transport, url: e.url, args });
    }
  }
  return { servers, skipped };
}

/** A TOML basic string (JSON's escapes are TOML's). */
const tomlString = (s: string) => JSON.stringify(s);

/** Claude Code: `$CLAUDE_CONFIG_DIR/.claude.json` `mcpServers` (user scope, no trust prompt). */
export function claudeCodeMcpJson(servers: McpServer[]): string {
  const mcpServers: Record<string, unknown> = {};
  for (const s of servers)
    mcpServers[s.name] =
      s.transport === 'stdio'
        ? { type: 'stdio', command: s.command, args: s.args }
        : { type: s.transport === 'streamable-http' ? 'http' : 'sse', url: s.url };
  return JSON.stringify({ mcpServers }, null, 2);
}

/** Codex: `[mcp_servers.<name>]` tables appended to `$CODEX_HOME/config.toml`. */
export function codexMcpToml(servers: McpServer[]): string {
  return servers
    .map((s) =>
      s.transport === 'stdio'
        ? `[mcp_servers.${tomlString(s.name)}]\ncommand = ${tomlString(s.command!)}\nargs = [${s.args.map(tomlString).join(', ')}]\n`
        : `[mcp_servers.${tomlString(s.name)}]\nurl = ${tomlString(s.url!)}\n`,
    )
    .join('\n');
}

/** Gemini CLI: `mcpServers` of ~/.gemini/settings.json. */
export function geminiMcpServers(servers: McpServer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of servers)
    out[s.name] =
      s.transport === 'stdio'
        ? { command: s.command, args: s.args }
        : s.transport === 'streamable-http'
          ? { httpUrl: s.url }
          : { url: s.url };
  return out;
}

/** opencode: the `mcp` config key. */
export function opencodeMcp(servers: McpServer[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const s of servers)
    out[s.name] =
      s.transport === 'stdio'
        ? { type: 'local', command: [s.command, ...s.args] }
        : { type: 'remote', url: s.url };
  return out;
}

/** Cursor: ~/.cursor/mcp.json. */
export function cursorMcpJson(servers: McpServer[]): string {
  const mcpServers: Record<string, unknown> = {};
  for (const s of servers)
    mcpServers[s.name] = s.transport === 'stdio' ? { command: s.command, args: s.args } : { url: s.url };
  return JSON.stringify({ mcpServers }, null, 2);
}

/** OpenHands: a config.toml `[mcp]` table given with --config-file. */
export function openHandsMcpToml(servers: McpServer[]): string {
  const inline = (fields: [string, string][]) => `{${fields.map(([k, v]) => `${k} = ${v}`).join(', ')}}`;
  const sse = servers.filter((s) => s.transport === 'sse').map((s) => inline([['url', tomlString(s.url!)]]));
  const shttp = servers
    .filter((s) => s.transport === 'streamable-http')
    .map((s) => inline([['url', tomlString(s.url!)]]));
  const stdio = servers
    .filter((s) => s.transport === 'stdio')
    .map((s) =>
      inline([
        ['name', tomlString(s.name)],
        ['command', tomlString(s.command!)],
        ['args', `[${s.args.map(tomlString).join(', ')}]`],
      ]),
    );
  const lines = ['[mcp]'];
  if (sse.length) lines.push(`sse_servers = [${sse.join(', ')}]`);
  if (shttp.length) lines.push(`shttp_servers = [${shttp.join(', ')}]`);
  if (stdio.length) lines.push(`stdio_servers = [${stdio.join(', ')}]`);
  return `${lines.join('\n')}\n`;
}

/** mini-swe-agent has no MCP client: Harbor appends the servers to the instruction. */
export function miniSweAgentMcpNote(servers: McpServer[]): string {
  let note = '\n\nMCP Servers:\nThe following MCP servers are available for this task.\n';
  for (const s of servers)
    note +=
      s.transport === 'stdio'
        ? `- ${s.name}: stdio transport, command: ${s.command} ${s.args.join(' ')}\n`
        : `- ${s.name}: ${s.transport} transport, url: ${s.url}\n`;
  return note;
}
