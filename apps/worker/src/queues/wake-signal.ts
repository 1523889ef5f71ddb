// A level-triggered wake-up for a loop that sleeps until there may be work: notify() before or
// during the loop's look is not lost (the next wait returns at once), and a wait never sleeps
// longer than its timeout, so a lost notification costs at most one period.
export interface WakeSignal {
  /** there may be work: wakes a waiting loop, or makes its next wait return at once */
  notify(): void;
  /** forgets earlier notifications (call right before looking for work) */
  clear(): void;
  /** resolves on a notification (true) or after `ms` (false) */
  wait(ms: number): Promise<boolean>;
}

export function createWakeSignal(): WakeSignal {
  let pending = false;
  let waiters: (() => void)[] = [];
  return {
    notify() {
      pending = true;
      const woken = waiters;
      waiters = [];
      for (const wake of woken) wake();
    },
    clear() {
      pending = false;
    },
    wait(ms) {
      if (pending) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== wake);
          resolve(false);
        }, ms);
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        waiters.push(wake);
      });
    },
  };
}
