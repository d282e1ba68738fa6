import { MemoryStore } from '../../../broker/storage/memory-store';
import { runStoreConformance } from './store-conformance';

runStoreConformance({ name: 'memory', create: () => new MemoryStore() });
