// GPUs for a sandbox: the device ids the worker reserved for the attempt (never "all"), asked of
// the engine as one NVIDIA device request, as `docker run --gpus '"device=0,2"'` does.
import type Docker from 'dockerode';

export function gpuDeviceRequests(ids: readonly string[]): Docker.DeviceRequest[] {
  if (ids.length === 0) return [];
  return [{ Driver: 'nvidia', DeviceIDs: [...ids], Capabilities: [['gpu']] }];
}

/**
 * The same reservation for a compose service (docker-compose 1.29 turns
 * `deploy.resources.reservations.devices` into the container's DeviceRequests; no `count`, which
 * the engine refuses beside device ids). Empty when none is reserved.
 */
export function composeGpuReservation(ids: readonly string[] | undefined): Record<string, unknown> {
  if (!ids?.length) return {};
  return {
    deploy: {
      resources: {
        reservations: { devices: [{ driver: 'nvidia', device_ids: [...ids], capabilities: ['gpu'] }] },
      },
    },
  };
}
