// The attempt an event of `runs logs` belongs to, at the start of its line:
// "[task-7 · agent 1 openai/gpt-x (terminus-2) · #0 try 2]" (nothing for run events).
import type { RunEventItem } from '@osmosis/contracts';

export function attemptTag(e: RunEventItem): string {
  if (!e.attempt_id || !e.task_name) return '';
  const parts = [e.task_name];
  if (e.agent_index !== null && e.agent_index !== undefined) {
    parts.push(`agent ${e.agent_index}${e.agent_label ? ` ${e.agent_label}` : ''}`);
  }
  const which: string[] = [];
  if (e.attempt_index !== null && e.attempt_index !== undefined) which.push(`#${e.attempt_index}`);
  if (e.try) which.push(`try ${e.try}`);
  if (which.length) parts.push(which.join(' '));
  return `[${parts.join(' · ')}] `;
}
