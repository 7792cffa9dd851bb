import { createRequire } from 'node:module';

/**
 * BullMQ's classes, loaded through `require`. The package is CommonJS (its `main`; it has no
 * `exports`), and Node's `import` of a CommonJS module first parses it and every file its index
 * re-exports to learn their names: ~65 ms at every start of a command that reads the queue
 * (`status`, `trigger`, the worker), against ~110 ms for the load itself. Types still come from
 * `import type ... from 'bullmq'`.
 */
const bullmq = createRequire(import.meta.url)('bullmq') as typeof import('bullmq');

export const { DelayedError, Queue, QueueEvents, UnrecoverableError, Worker } = bullmq;
