#!/usr/bin/env python3
"""A loopback TCP proxy that cuts the network on command, for the fault-injection soak.

    tcp_proxy.py --ports-file FILE NAME=UPSTREAM_PORT...

For each NAME it listens on a free port of 127.0.0.1 and forwards every connection to
127.0.0.1:UPSTREAM_PORT. A control listener takes one command per connection (a line; the reply
is a line starting with "ok" or "error"):

    stall NAME SECONDS   stop forwarding NAME's bytes, both ways, for SECONDS (connections stay
                         open; new ones are accepted and connected, but nothing passes). The
                         bytes read meanwhile are delivered after the stall, in order.
    drop NAME            close every open connection of NAME at once, both sides (RST).
    resume               end every stall now.
    stats                per NAME: connections accepted, dropped, bytes forwarded.

When FILE is written (atomically) it holds one line per listener, "NAME PORT", and a line
"control PORT"; the proxy then runs until SIGTERM or SIGINT.

Why a closed side still closes its partner during a stall: rowbridge gives up on a stalled
connection after its read timeout and connects anew; if the source kept the old dump session
until the stall ended, the new session could find our server_id still registered. A cut
network would hold the old session a while too; the soak tests stalls and the restart guard
separately.
"""

import argparse
import asyncio
import os
import signal
import socket
import struct
import sys


class Route:
    """One listener: connections to it are forwarded to 127.0.0.1:upstream_port."""

    def __init__(self, name, upstream_port):
        self.name = name
        self.upstream_port = upstream_port
        self.open_gate = asyncio.Event()
        self.open_gate.set()
        self.stall_task = None
        self.connections = set()
        self.accepted = 0
        self.dropped = 0
        self.bytes = 0

    def stall(self, seconds):
        if self.stall_task is not None:
            self.stall_task.cancel()
        self.open_gate.clear()
        self.stall_task = asyncio.get_running_loop().create_task(self._reopen_after(seconds))

    async def _reopen_after(self, seconds):
        try:
            await asyncio.sleep(seconds)
        except asyncio.CancelledError:
            return
        self.open_gate.set()
        self.stall_task = None

    def resume(self):
        if self.stall_task is not None:
            self.stall_task.cancel()
            self.stall_task = None
        self.open_gate.set()

    def drop(self):
        for connection in list(self.connections):
            connection.abort()
            self.dropped += 1

    async def serve(self, client_reader, client_writer):
        self.accepted += 1
        try:
            upstream_reader, upstream_writer = await asyncio.open_connection(
                "127.0.0.1", self.upstream_port)
        except OSError:
            # The server is down (a restart fault): the client sees a closed connection, as it
            # would see a refused one without the proxy.
            Connection.reset(client_writer)
            return
        connection = Connection(self, client_reader, client_writer, upstream_reader,
                                upstream_writer)
        self.connections.add(connection)
        try:
            await connection.run()
        finally:
            self.connections.discard(connection)


class Connection:
    """A client connection and its upstream connection, pumped both ways through queues."""

    def __init__(self, route, client_reader, client_writer, upstream_reader, upstream_writer):
        self.route = route
        self.writers = (client_writer, upstream_writer)
        self.pairs = ((client_reader, upstream_writer), (upstream_reader, client_writer))
        self.closed = asyncio.Event()

    @staticmethod
    def reset(writer):
        # SO_LINGER 0: close() sends RST, as a cut network or a killed peer looks to the other side.
        sock = writer.get_extra_info("socket")
        if sock is not None:
            try:
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            except OSError:
                pass
        writer.transport.abort()

    def abort(self):
        if self.closed.is_set():
            return
        self.closed.set()
        for writer in self.writers:
            Connection.reset(writer)

    async def _read(self, reader, queue):
        try:
            while True:
                data = await reader.read(65536)
                if not data:
                    break
                queue.put_nowait(data)
        except (OSError, asyncio.IncompleteReadError):
            pass
        queue.put_nowait(None)

    async def _write(self, writer, queue):
        try:
            while True:
                data = await queue.get()
                if data is None:
                    # An orderly close: pass it on once what was read before has been delivered.
                    await self.route.open_gate.wait()
                    writer.write_eof()
                    return
                await self.route.open_gate.wait()
                writer.write(data)
                await writer.drain()
                self.route.bytes += len(data)
        except (OSError, RuntimeError):
            self.abort()

    async def run(self):
        tasks = []  # reader, writer (client -> upstream), reader, writer (upstream -> client)
        for reader, writer in self.pairs:
            queue = asyncio.Queue()
            tasks.append(asyncio.create_task(self._read(reader, queue)))
            tasks.append(asyncio.create_task(self._write(writer, queue)))
        closed = asyncio.create_task(self.closed.wait())
        done, _ = await asyncio.wait(tasks + [closed], return_when=asyncio.FIRST_COMPLETED)
        for i in (0, 2):
            if tasks[i] in done and not self.closed.is_set() and self.route.open_gate.is_set():
                # An orderly close while bytes flow: deliver what was read before it (the writer
                # then passes the EOF on). During a stall the partner is reset at once instead
                # (see the module comment).
                await asyncio.wait([tasks[i + 1], closed], timeout=5,
                                   return_when=asyncio.FIRST_COMPLETED)
                break
        self.abort()
        for task in tasks + [closed]:
            task.cancel()
        await asyncio.gather(*tasks, closed, return_exceptions=True)


async def control(routes, reader, writer):
    try:
        line = (await reader.readline()).decode(errors="replace").split()
        reply = "error: unknown command (stall NAME SECONDS | drop NAME | resume | stats)"
        if line[:1] == ["stall"] and len(line) == 3 and line[1] in routes:
            routes[line[1]].stall(float(line[2]))
            reply = "ok"
        elif line[:1] == ["drop"] and len(line) == 2 and line[1] in routes:
            before = routes[line[1]].dropped
            routes[line[1]].drop()
            reply = "ok %d" % (routes[line[1]].dropped - before)
        elif line == ["resume"]:
            for route in routes.values():
                route.resume()
            reply = "ok"
        elif line == ["stats"]:
            reply = "ok " + " ".join("%s:accepted=%d,dropped=%d,bytes=%d" %
                                     (r.name, r.accepted, r.dropped, r.bytes)
                                     for r in routes.values())
        elif line[:1] in (["stall"], ["drop"]):
            reply = "error: unknown route or bad arguments: %s" % " ".join(line)
        writer.write((reply + "\n").encode())
        await writer.drain()
    except (OSError, ValueError, IndexError) as e:
        try:
            writer.write(("error: %s\n" % e).encode())
        except OSError:
            pass
    finally:
        writer.close()


async def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--ports-file", required=True)
    parser.add_argument("routes", nargs="+", metavar="NAME=UPSTREAM_PORT")
    args = parser.parse_args()
    routes = {}
    for spec in args.routes:
        name, _, port = spec.partition("=")
        if not name or not port.isdigit():
            parser.error("expected NAME=UPSTREAM_PORT, got %r" % spec)
        routes[name] = Route(name, int(port))

    servers = []
    lines = []
    for route in routes.values():
        server = await asyncio.start_server(route.serve, "127.0.0.1", 0)
        servers.append(server)
        lines.append("%s %d" % (route.name, server.sockets[0].getsockname()[1]))
    control_server = await asyncio.start_server(lambda r, w: control(routes, r, w), "127.0.0.1", 0)
    servers.append(control_server)
    lines.append("control %d" % control_server.sockets[0].getsockname()[1])
    tmp = args.ports_file + ".tmp"
    with open(tmp, "w") as f:
        f.write("\n".join(lines) + "\n")
    os.replace(tmp, args.ports_file)

    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    await stop.wait()
    for server in servers:
        server.close()
    for route in routes.values():
        route.drop()


if __name__ == "__main__":
    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        sys.exit(130)
