// undici's own modules behind its index (src/client/undici-pool.ts): the package ships no types
// for them; undici-pool.ts types what it takes through the index's types.
declare module 'undici/lib/api/api-request.js' {
  const request: unknown;
  export default request;
}
declare module 'undici/lib/dispatcher/dispatcher.js' {
  const Dispatcher: { prototype: object };
  export default Dispatcher;
}
declare module 'undici/lib/dispatcher/pool.js' {
  const Pool: unknown;
  export default Pool;
}
