export { TOOL_SPECS, toolsForHarness } from './catalog.ts';
export { rememberToolChoice, type ToolChoice, toolChoiceOf, versionLine } from './choice.ts';
export { type ElfFacts, readElf } from './elf.ts';
export { type HostFacts, hostFacts, ToolPrepError } from './host.ts';
export { BUNDLE_FORMAT, MANIFEST_FILE, ToolManifest, verifyBundle } from './manifest.ts';
export { findTool, type MountedTool, mountedTool } from './mounted.ts';
export { NODE_INTEGRITY, NODE_VERSION, nodeTool, nodeToolFromBinary } from './node.ts';
export { type NpmCliOptions, npmCliTool } from './npm-cli.ts';
export { type PythonCliOptions, pythonCliTool } from './python-cli.ts';
export { type BuildContext, type BuildResult, sandboxDirOf, type ToolSpec } from './spec.ts';
export {
  type PreparedTools,
  type ToolBundle,
  ToolStore,
  type ToolStoreOptions,
  toolStoreFromEnv,
} from './store.ts';
export { tmuxTool } from './tmux.ts';
