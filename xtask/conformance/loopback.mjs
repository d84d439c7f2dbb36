// Preloaded into the conformance suite (`node --import`): its mock servers call
// `listen(port)` without a host, which binds every interface. Default the host to
// 127.0.0.1 so nothing the suite starts listens beyond loopback.
import net from 'node:net';

const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
  const first = args[0];
  if (typeof first === 'number' || (typeof first === 'string' && /^\d+$/.test(first))) {
    // listen(port[, host][, backlog][, cb]): insert the host when none is given.
    if (typeof args[1] !== 'string') args.splice(1, 0, '127.0.0.1');
  } else if (first === undefined || typeof first === 'function') {
    // listen() / listen(cb): a random port on every interface.
    args.unshift(0, '127.0.0.1');
  } else if (first && typeof first === 'object' && first.path === undefined && first.host === undefined) {
    args[0] = { ...first, host: '127.0.0.1' };
  }
  return listen.apply(this, args);
};
