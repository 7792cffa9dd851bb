// What docs/api.md guarantees, and nothing more (docs/records.md): the envelopes and the login answer,
// which the client checks strictly; records as JSON objects; the write bodies docs/api.md shows.
// tms-sim's own record shapes live with it (src/sim/records/).
export * from './common.js';
export * from './envelopes.js';
export * from './json-object.js';
export * from './write-bodies.js';
