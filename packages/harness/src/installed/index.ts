export * from './agents.ts';
export * from './harness.ts';
export * from './mcp.ts';
export * from './parsers.ts';
