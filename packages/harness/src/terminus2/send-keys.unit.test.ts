// send-keys against Harbor's own `_tmux_send_keys`, run on the golden inputs (test-data/harbor-golden):
// 0.6.4 measures the 16,000 limit in characters, 0.9 in UTF-8 bytes with `--` before the keys.
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { PROFILE_BEHAVIOUR } from './profile.ts';
import { SEND_KEYS_064, type SendKeysStyle, sendKeysBatches, shlexQuote } from './tmux.ts';

interface Golden {
  cases: { input: { keys: string[] }; harbor: { commands: string[] } }[];
}
const golden = (version: string): Golden =>
  JSON.parse(
    readFileSync(
      new URL(`../../test-data/harbor-golden/send-keys.${version}.golden.json`, import.meta.url),
      'utf8',
    ),
  );

const commandsOf = (keys: string[], style: SendKeysStyle) => {
  const prefix = `tmux send-keys -t terminus-2${style.endOfOptions ? ' --' : ''}`;
  return sendKeysBatches('terminus-2', keys, style).map((b) => `${prefix} ${b.map(shlexQuote).join(' ')}`);
};

const v09 = PROFILE_BEHAVIOUR['harbor-0.9'];
const STYLE_09: SendKeysStyle = { endOfOptions: v09.sendKeysEndOfOptions, length: v09.sendKeysLength };

describe("send-keys as Harbor's _tmux_send_keys builds it", () => {
  it('harbor-0.6.4: no `--`, the limit in characters, on every golden case', () => {
    for (const c of golden('0.6.4').cases)
      expect(commandsOf(c.input.keys, SEND_KEYS_064), JSON.stringify(c.input).slice(0, 60)).toEqual(
        c.harbor.commands,
      );
  });

  it('harbor-0.9: `--` before the keys and the limit in UTF-8 bytes, on every golden case', () => {
    for (const c of golden('0.9.0').cases)
      expect(commandsOf(c.input.keys, STYLE_09), JSON.stringify(c.input).slice(0, 60)).toEqual(
        c.harbor.commands,
      );
  });

  it('harbor-0.9 splits multibyte input that fits in characters, and no command passes 16,000 bytes', () => {
    const key = `echo ${'é'.repeat(9000)}\n`;
    expect(sendKeysBatches('terminus-2', [key], SEND_KEYS_064)).toHaveLength(1);
    const batches = sendKeysBatches('terminus-2', [key], STYLE_09);
    expect(batches.length).toBe(2);
    expect(batches.flat().join('')).toBe(key);
    for (const command of commandsOf([key], STYLE_09))
      expect(Buffer.byteLength(command)).toBeLessThanOrEqual(16_000);
  });

  it('never cuts a character in two: astral characters stay whole in every chunk', () => {
    const key = '😀'.repeat(9000);
    for (const style of [SEND_KEYS_064, STYLE_09])
      for (const chunk of sendKeysBatches('terminus-2', [key], style).flat())
        expect(chunk).not.toMatch(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/);
  });
});
