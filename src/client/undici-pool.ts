// undici's index loads every part of it (fetch, WebSocket, cookies, caches, mocks) where the
// client needs one Pool and its `request`: ~40 ms of every start (BENCHMARKS.md, "What moved the
// figures"). This loads those alone and puts them together as the index does. These paths are not
// undici's public API: package.json pins undici to one exact version, to be moved on deliberately.
import type { Pool as UndiciPool } from 'undici';
import request from 'undici/lib/api/api-request.js';
import Dispatcher from 'undici/lib/dispatcher/dispatcher.js';
import PoolClass from 'undici/lib/dispatcher/pool.js';

// What undici's index does (`Object.assign(Dispatcher.prototype, api)`), for `request` only: the
// same function on the same prototype, so loading the index too changes nothing.
Object.assign(Dispatcher.prototype, { request });

/** undici's Pool, typed as the index exports it. */
export const Pool = PoolClass as unknown as typeof UndiciPool;
export type Pool = UndiciPool;
