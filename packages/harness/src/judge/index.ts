export * from './hle-template.ts';
export * from './judge.ts';
export * from './recover.ts';
export * from './rubric-prompt.ts';
export * from './template-id.ts';
export * from './verifier.ts';
