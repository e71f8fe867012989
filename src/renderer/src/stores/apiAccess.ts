// The loopback API as the user manages it: the server's address and state, its recent requests,
// and API keys (created here and shown once, listed with last use, revoked).
import { defineStore } from 'pinia';
import { computed, ref } from 'vue';
import type { ApiKeyInfo, OutputOf } from '../../../shared/contract';
import { describeError, getBridge } from '../bridge';

export const STATUS_REFRESH_MS = 3000;

export const useApiStore = defineStore('apiAccess', () => {
  const status = ref<OutputOf<'api/status'> | null>(null);
  const keys = ref<ApiKeyInfo[]>([]);
  const error = ref<string | null>(null);
  const keyError = ref<string | null>(null);
  /** A key just created: its secret is held only until the user dismisses it. */
  const newKey = ref<{ name: string; key: string } | null>(null);
  const busy = ref(false);
  let timer: ReturnType<typeof setInterval> | null = null;

  const activeKeys = computed(() => keys.value.filter((k) => !k.revokedAt));

  async function refresh(): Promise<void> {
    const bridge = getBridge();
    const [s, k] = await Promise.allSettled([bridge['api/status']({}), bridge['keys/list']({})]);
    if (s.status === 'fulfilled') status.value = s.value;
    if (k.status === 'fulfilled') keys.value = k.value;
    const failed = [s, k].find((r) => r.status === 'rejected') as PromiseRejectedResult | undefined;
    error.value = failed ? describeError(failed.reason) : null;
  }

  async function createKey(name: string): Promise<boolean> {
    busy.value = true;
    try {
      const created = await getBridge()['keys/create']({ name: name.trim() });
      newKey.value = { name: created.info.name, key: created.key };
      keyError.value = null;
      await refresh();
      return true;
    } catch (e) {
      keyError.value = describeError(e);
      return false;
    } finally {
      busy.value = false;
    }
  }

  async function revokeKey(id: string): Promise<void> {
    try {
      await getBridge()['keys/revoke']({ id });
      keyError.value = null;
      await refresh();
    } catch (e) {
      keyError.value = describeError(e);
    }
  }

  function dismissNewKey(): void {
    newKey.value = null;
  }

  function startPolling(): void {
    void refresh();
    if (!timer) timer = setInterval(() => void refresh(), STATUS_REFRESH_MS);
  }

  function stopPolling(): void {
    if (timer) clearInterval(timer);
    timer = null;
  }

  return {
    status,
    keys,
    activeKeys,
    error,
    keyError,
    newKey,
    busy,
    refresh,
    createKey,
    revokeKey,
    dismissNewKey,
    startPolling,
    stopPolling,
  };
});
