export * from './factory.ts';
export * from './keys.ts';
export * from './local.ts';
export * from './s3.ts';
export * from './storage.ts';
