// Asking the back end about something that may change while the answer is under way (the
// audience, the record open): each request is numbered, and only the latest one's answer or
// failure counts; older ones are dropped. audienceQuery() asks so about the committed audience,
// for the count (stores/audience), the breakdown and the cross-tab; the record drawer uses
// latestAnswer() itself.
import { ref, type Ref } from 'vue';
import { describeError } from '../bridge';

export interface LatestAnswer {
  /**
   * Runs `ask`; unless a later request started (or drop() was called) meanwhile, clears `error`
   * and hands the answer to `apply` (which may set an error of its own), or puts the failure in
   * `error`. `busy` is true while the latest request is under way.
   */
  run<T>(ask: () => Promise<T>, apply: (answer: T) => void): Promise<void>;
  /** Any answer under way no longer counts (`busy` is then the caller's to reset). */
  drop(): void;
}

export function latestAnswer(busy: Ref<boolean>, error: Ref<string | null>): LatestAnswer {
  let seq = 0;
  return {
    async run(ask, apply) {
      const mine = ++seq;
      busy.value = true;
      try {
        const answer = await ask();
        if (mine !== seq) return;
        error.value = null;
        apply(answer);
      } catch (e) {
        if (mine === seq) error.value = describeError(e);
      } finally {
        if (mine === seq) busy.value = false;
      }
    },
    drop() {
      seq++;
    },
  };
}

export interface AudienceQuery<A> {
  /** True while the latest request is under way. */
  loading: Ref<boolean>;
  /** What went wrong with the latest request, else null. */
  error: Ref<string | null>;
  /** Asks about the audience (nothing while it has no state); only the latest answer is applied. */
  run<T>(ask: (audience: A) => Promise<T>, apply: (answer: T) => void): Promise<void>;
}

/** A store's questions about the committed audience, read from `audience` when each one is asked. */
export function audienceQuery<A extends { state: string }>(audience: () => A | null): AudienceQuery<A> {
  const loading = ref(false);
  const error = ref<string | null>(null);
  const latest = latestAnswer(loading, error);
  return {
    loading,
    error,
    async run(ask, apply) {
      const target = audience();
      if (!target?.state) return;
      await latest.run(() => ask(target), apply);
    },
  };
}
