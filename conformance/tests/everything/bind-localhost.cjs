// bind-localhost.cjs: preloaded into server-everything, which calls app.listen(PORT) with no host
// (every interface) and has no option for one: a listen(port[, cb]) on a TCP port is bound to
// 127.0.0.1 instead, so the reference server is never reachable from the network during tests.
"use strict";
const net = require("node:net");
const listen = net.Server.prototype.listen;
net.Server.prototype.listen = function (...args) {
    const portOnly = (typeof args[0] === "number" || /^\d+$/.test(String(args[0]))) &&
        (args.length === 1 || typeof args[1] === "function");
    if (portOnly) args.splice(1, 0, "127.0.0.1");
    return listen.apply(this, args);
};
