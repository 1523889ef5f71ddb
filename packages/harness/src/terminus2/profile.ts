// What differs between the Harbor releases terminus-2 reproduces (docs/terminus-2.md, "Behaviour
// profiles"): the default temperature, how keystrokes reach tmux, and which provider messages
// count as a context overflow. Everything else is the same in both.
import { TERMINUS2_DEFAULT_TEMPERATURE, type Terminus2Profile } from '@osmosis/contracts';

export interface ProfileBehaviour {
  /** Sent when `[agents.params]` sets none; null: no temperature at all (0.9, lite_llm.py L304–308). */
  defaultTemperature: number | null;
  /** `send-keys -t S -- keys…` (0.9 marks the end of options; tmux_session.py L358–360). */
  sendKeysEndOfOptions: boolean;
  /** How the 16,000 limit of one send-keys is measured: characters (0.6.4) or UTF-8 bytes (0.9). */
  sendKeysLength: 'chars' | 'utf8-bytes';
  /**
   * Harbor's `_is_context_length_error` phrases, looked for (lower-cased) in a provider's
   * error on top of the overflow LiteLLM itself recognises.
   */
  contextOverflowPhrases: readonly string[];
}

const PHRASES_064 = [
  'context length exceeded',
  'context_length_exceeded',
  'maximum context length',
  '`inputs` tokens + `max_new_tokens`',
  "model's context length",
];

export const PROFILE_BEHAVIOUR: Readonly<Record<Terminus2Profile, ProfileBehaviour>> = Object.freeze({
  'harbor-0.6.4': {
    defaultTemperature: TERMINUS2_DEFAULT_TEMPERATURE,
    sendKeysEndOfOptions: false,
    sendKeysLength: 'chars',
    contextOverflowPhrases: PHRASES_064,
  },
  'harbor-0.9': {
    defaultTemperature: null,
    sendKeysEndOfOptions: true,
    sendKeysLength: 'utf8-bytes',
    // Anthropic and Bedrock messages as OpenAI-compatible proxies pass them on (lite_llm.py L655–663)
    contextOverflowPhrases: [...PHRASES_064, 'prompt is too long', 'input is too long for requested model'],
  },
});
