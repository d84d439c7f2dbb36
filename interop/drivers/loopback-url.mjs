// Node preload (`node --import`) for servers `cargo xtask interop` starts without control over
// their listen call (server-everything reads PORT): every listen without a host binds
// 127.0.0.1 (reference/conformance/loopback.mjs), and the first TCP server to listen prints
// `listening on http://127.0.0.1:PORT/mcp` on stdout, so PORT=0 picks a free port the runner
// can read.
import net from 'node:net';

// The conformance step's preload, one copy for both harnesses.
import '../../reference/conformance/loopback.mjs';

const listen = net.Server.prototype.listen;
let announced = false;
net.Server.prototype.listen = function (...args) {
  this.once('listening', () => {
    const address = this.address();
    if (!announced && address && typeof address === 'object') {
      announced = true;
      process.stdout.write(`listening on http://127.0.0.1:${address.port}/mcp\n`);
    }
  });
  return listen.apply(this, args);
};
