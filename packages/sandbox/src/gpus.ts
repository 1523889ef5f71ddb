// GPUs for a sandbox: the device ids the worker reserved for the attempt (never "all"), asked of
// the engine as one NVIDIA device request, as `docker run --gpus '"device=0,2"'` does.
import type Docker from 'dockerode';

export function gpuDeviceRequests(ids: readonly string[]): Docker.DeviceRequest[] {
  if (ids.length === 0) return [];
  return [{ Driver: 'nvidia', DeviceIDs: [...ids], Capabilities: [['gpu']] }];
}
