"""NMEA 0183 served live: over TCP as a networked receiver serves it, and on a pseudo-terminal.

Both carry exactly the lines of the run's ``gnss.nmea`` (whatever sentences that file holds),
each ended by <CR><LF>, an epoch's lines at the epoch's delivery time.

- :class:`NmeaTcpServer`: every connected client gets the sentences from the moment it connects
  (as u-blox, Septentrio and NovAtel receivers serve NMEA on a TCP port; gpsd reads it with
  ``gpsd tcp://HOST:PORT``, nmea_navsat_driver's ``nmea_socket_driver`` in TCP mode). What a
  client sends is read and ignored.
- :class:`NmeaPty`: a pseudo-terminal in raw mode whose other end (``/dev/pts/N``, or a symbolic
  link to it) reads like a serial receiver (``gpsd /dev/pts/N``, ``nmea_serial_driver``).

Nothing a client does stalls the run: :meth:`send` only queues. Each TCP client has its own
sender thread and a queue of at most ``backlog`` epochs; when a slow client lets it fill, its
oldest epoch is dropped (whole epochs, never part of a sentence) and counted in ``dropped``. A
client that disconnects is forgotten. The pseudo-terminal is written without blocking: when its
buffer (about 20 KiB on Linux) is full because nobody reads, what waits unread is discarded for
the new epoch.
"""

from __future__ import annotations

import contextlib
import os
import socket
import threading
from collections import deque

__all__ = ["NmeaTcpServer", "NmeaPty", "DEFAULT_BACKLOG"]

DEFAULT_BACKLOG = 100  # epochs queued a client: 10 s of a 10 Hz receiver


class _Client:
    """One TCP client: a bounded queue (oldest dropped) and the thread that sends it."""

    def __init__(self, conn: socket.socket, backlog: int, gone) -> None:
        self.conn = conn
        self.queue: deque[bytes] = deque()
        self.backlog = backlog
        self.dropped = 0
        self.closed = False
        self._wake = threading.Condition()
        self._gone = gone
        self.thread = threading.Thread(target=self._send_loop, name="navsense-nmea-client")
        self.thread.daemon = True
        self.thread.start()

    def put(self, data: bytes) -> None:
        with self._wake:
            if len(self.queue) >= self.backlog:
                self.queue.popleft()
                self.dropped += 1
            self.queue.append(data)
            self._wake.notify()

    def close(self) -> None:
        with self._wake:
            self.closed = True
            self._wake.notify()

    def _send_loop(self) -> None:
        try:
            while True:
                with self._wake:
                    while not self.queue and not self.closed:
                        self._wake.wait()
                    if not self.queue:  # closed and drained
                        return
                    data = b"".join(self.queue)
                    self.queue.clear()
                self.conn.sendall(data)
        except OSError:  # the client went away (reset, broken pipe)
            pass
        finally:
            with contextlib.suppress(OSError):
                self.conn.shutdown(socket.SHUT_RDWR)
            self.conn.close()
            self._gone(self)


class NmeaTcpServer:
    """NMEA over TCP: ``NmeaTcpServer(host, port)`` listens (port 0: any free port, see
    :attr:`port`); :meth:`send` queues one epoch's bytes to every client; :meth:`close` stops
    listening and ends every client's connection after its queue is sent."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, backlog: int = DEFAULT_BACKLOG):
        self.backlog = backlog
        self._clients: list[_Client] = []
        self._lock = threading.Lock()
        self.dropped = 0  # epochs dropped for slow clients (those gone included)
        self.connections = 0  # clients accepted so far
        try:
            self._sock = socket.create_server((host, port))
        except OSError as exc:
            from navsense.errors import ConfigError

            raise ConfigError(
                f"--nmea-tcp {port}: cannot listen on {host}:{port} ({exc.strerror or exc}); "
                "choose another port (0: any free one)"
            ) from None
        self.host, self.port = self._sock.getsockname()[:2]
        self._closed = False
        self._accepter = threading.Thread(target=self._accept_loop, name="navsense-nmea-accept")
        self._accepter.daemon = True
        self._accepter.start()

    def _accept_loop(self) -> None:
        while True:
            try:
                conn, _ = self._sock.accept()
            except OSError:  # the listening socket was closed
                return
            conn.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            with self._lock:
                if self._closed:
                    conn.close()
                    return
                self._clients.append(_Client(conn, self.backlog, self._forget))
                self.connections += 1

    def _forget(self, client: _Client) -> None:
        with self._lock:
            self.dropped += client.dropped
            if client in self._clients:
                self._clients.remove(client)

    @property
    def clients(self) -> int:
        """The clients connected now."""
        with self._lock:
            return len(self._clients)

    def send(self, data: bytes) -> None:
        """Queue ``data`` (one epoch's sentences) to every client; never blocks on a client."""
        with self._lock:
            clients = list(self._clients)
        for client in clients:
            client.put(data)

    def close(self, timeout: float = 2.0) -> None:
        """Stop accepting; each client gets what is queued for it (within ``timeout`` s)."""
        with self._lock:
            self._closed = True
            clients = list(self._clients)
        # shutdown wakes the accept() blocked in the other thread; close alone does not
        with contextlib.suppress(OSError):
            self._sock.shutdown(socket.SHUT_RDWR)
        self._sock.close()
        self._accepter.join(timeout)
        for client in clients:
            client.close()
        for client in clients:
            client.thread.join(timeout)
            if client.thread.is_alive():  # a client that reads nothing: cut it off
                with contextlib.suppress(OSError):
                    client.conn.shutdown(socket.SHUT_RDWR)
                client.thread.join(timeout)


class NmeaPty:
    """A pseudo-terminal that reads like a serial NMEA receiver.

    ``NmeaPty(link=None)`` opens the pair in raw mode (no echo, no line-end translation);
    :attr:`device` is the name of the terminal to read (``/dev/pts/N``); with ``link`` a
    symbolic link at that path points to it (replacing an existing link, never a file) and is
    removed by :meth:`close`.
    """

    def __init__(self, link: str | None = None) -> None:
        import tty

        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # the reader sees the bytes as sent: <CR><LF> stays
        os.set_blocking(self._master, False)
        self.device = os.ttyname(self._slave)
        self.dropped = 0
        self.link = link
        if link is not None:
            if os.path.lexists(link) and not os.path.islink(link):
                from navsense.errors import ConfigError

                self.close()
                raise ConfigError(f"--nmea-pty {link}: a file is there; not replacing it")
            with contextlib.suppress(FileNotFoundError):
                os.unlink(link)
            os.symlink(self.device, link)

    def send(self, data: bytes) -> None:
        """Write ``data`` (one epoch) without blocking. When the terminal is full (nobody reads,
        or too slowly), what waits unread is discarded (tcflush) and ``data`` written in its
        place: the oldest data goes, as for a slow TCP client, and a reader that comes later
        starts with fresh sentences."""
        import termios

        try:
            n = os.write(self._master, data)
        except BlockingIOError:
            n = 0
        if n == len(data):
            return
        termios.tcflush(self._slave, termios.TCIFLUSH)  # the partly written epoch goes too
        self.dropped += 1
        with contextlib.suppress(BlockingIOError):
            os.write(self._master, data)

    def close(self) -> None:
        if self.link is not None:
            with contextlib.suppress(OSError):
                if os.path.islink(self.link):
                    os.unlink(self.link)
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)
