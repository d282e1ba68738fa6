/**
 * Overview slice: the latest `Overview` per connection and the local broker's status, fed by the
 * ConsoleApi `overview` and `localBroker` streams. Only the latest sample is kept (history, when
 * charts arrive, goes in a bounded metrics slice).
 */
import type { StateCreator } from 'zustand';
import type { LocalBrokerStatus, Overview } from '../../../shared/console-api';

export interface OverviewSlice {
  overviews: Record<string, Overview>;
  localBroker: LocalBrokerStatus | null;
  applyOverview(overview: Overview): void;
  applyLocalBroker(status: LocalBrokerStatus): void;
}

export const createOverviewSlice: StateCreator<OverviewSlice, [], [], OverviewSlice> = (set) => ({
  overviews: {},
  localBroker: null,
  applyOverview: (overview) =>
    set((state) => {
      const previous = state.overviews[overview.connectionId];
      // Events and call results can cross on the wire: never go back to an older sample. Ordered
      // by the poller's sequence, not the wall clock, which may step back.
      if (previous && previous.seq > overview.seq) return state;
      return {
        overviews: { ...state.overviews, [overview.connectionId]: overview },
        localBroker: overview.local ?? state.localBroker,
      };
    }),
  applyLocalBroker: (status) => set({ localBroker: status }),
});
