export * from './canonical-json.ts';
export * from './diff.ts';
export * from './fingerprint.ts';
