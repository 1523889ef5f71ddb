// Builds (or finds) the image with the four real CLIs and prints its reference, for
//   OSMOSIS_REAL_CLI_IMAGE=$(node test/helpers/real-cli/build-image.ts) pnpm vitest run test/harness-installed-real.test.ts
// The build fetches Node, npm and the CLIs from the npm registry, so it is a step a developer (or a
// CI job allowed to reach the registry) runs on purpose: the test suite itself never builds it and
// its traffic stays on the machine.
import { ensureRealCliImage } from './images.ts';

const started = Date.now();
const image = await ensureRealCliImage();
process.stderr.write(`real-CLI image ready in ${Math.round((Date.now() - started) / 1000)} s\n`);
process.stdout.write(`${image}\n`);
