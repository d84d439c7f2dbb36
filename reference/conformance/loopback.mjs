// Node preload (`node --import`) for running the conformance suite: its mock servers call
// `listen(port)` without a host, which binds every interface. This makes every listen without
// a host bind the loopback address, so nothing the suite starts is reachable from outside.
//
// A listen with a host resolves it with `dns.lookup` first, so `server.address()` would be
// null right after `listen()` returns — and some scenarios read it synchronously. Looking up
// the loopback literal therefore answers at once, keeping listen as synchronous as without a
// host.
import dns from 'node:dns';
import net from 'node:net';

const LOOPBACK = '127.0.0.1';

const lookup = dns.lookup;
dns.lookup = function (hostname, ...rest) {
  const callback = rest[rest.length - 1];
  if (hostname === LOOPBACK && typeof callback === 'function') {
    const options = rest.length > 1 ? rest[0] : undefined;
    if (options !== null && typeof options === 'object' && options.all) {
      callback(null, [{ address: LOOPBACK, family: 4 }]);
    } else {
      callback(null, LOOPBACK, 4);
    }
    return {};
  }
  return lookup.call(this, hostname, ...rest);
};

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (first === undefined || typeof first === 'function') {
    args.unshift(0, LOOPBACK);
  } else if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    if (typeof args[1] !== 'string') args.splice(1, 0, LOOPBACK);
  } else if (first !== null && typeof first === 'object' && !('path' in first) && first.host === undefined) {
    args[0] = { ...first, host: LOOPBACK };
  }
  return listen.apply(this, args);
};
