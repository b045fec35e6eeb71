"""NMEA 0183 served live: over TCP as a networked receiver serves it, and on a pseudo-terminal.

Both carry exactly the lines of the run's ``gnss.nmea`` (whatever sentences that file holds),
each ended by <CR><LF>, an epoch's lines at the epoch's delivery time.

- :class:`NmeaTcpServer`: every connected client gets the sentences from the moment it connects
  (as u-blox, Septentrio and NovAtel receivers serve NMEA on a TCP port; gpsd reads it with
  ``gpsd tcp://HOST:PORT``, nmea_navsat_driver's ``nmea_socket_driver`` in TCP mode). What a
  client sends is read and ignored.
- :class:`NmeaPty`: a pseudo-terminal in raw mode whose other end (``/dev/pts/N``, or a symbolic
  link to it) reads like a serial receiver (``gpsd /dev/pts/N``, ``nmea_serial_driver``).

Nothing a client does stalls the run: :meth:`send` only queues. Each TCP client, and the
pseudo-terminal, has its own writer thread and a queue of at most ``backlog`` epochs; when a slow
reader lets it fill, its oldest epoch is dropped (whole epochs, never part of a sentence) and
counted in ``dropped``. A TCP client that disconnects is forgotten. The pseudo-terminal's own
buffer holds about 20 KiB on Linux (some 20 epochs of the full sentence set): beyond it its
writer waits for the reader, up to the queue's ``backlog`` epochs; what nobody reads waits there
for a reader that comes later.
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
            # the host's own family: an IPv6 address (::1) could not be bound as IPv4
            family = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)[0][0]
            self._sock = socket.create_server((host, port), family=family)
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


# NmeaPty.close: how long the terminal shows nothing unread before it counts as read (the
# kernel's work queue that moves written bytes into the read buffer ran more than 50 ms late on a
# machine loaded three times its cores, and the late reader of a test lost the last epoch)
SETTLE_S = 0.2


def check_pty_link(link: str) -> None:
    """ConfigError (one line naming --nmea-pty) unless a symbolic link can be made at ``link``:
    a name (no NUL, not too long) in an existing, writable directory, where nothing is or a
    symbolic link is (replaced; a file or a directory never is). Checked before a run starts."""
    from navsense.errors import ConfigError
    from navsense.output.outfiles import name_max as longest_name

    if not link or "\0" in link or link.endswith(os.sep):
        raise ConfigError(f"--nmea-pty {link!r}: not a file name for the link")
    if os.path.lexists(link) and not os.path.islink(link):
        raise ConfigError(f"--nmea-pty {link}: a file is there; not replacing it")
    folder = os.path.dirname(link) or "."
    if not os.path.isdir(folder):
        raise ConfigError(f"--nmea-pty {link}: the folder {folder} does not exist")
    if not os.access(folder, os.W_OK | os.X_OK):
        raise ConfigError(f"--nmea-pty {link}: the folder {folder} is not writable")
    name_max = longest_name(folder)
    if len(os.fsencode(os.path.basename(link))) > name_max:
        raise ConfigError(f"--nmea-pty {link[:60]}...: the name is longer than {name_max} bytes")


class NmeaPty:
    """A pseudo-terminal that reads like a serial NMEA receiver.

    ``NmeaPty(link=None, backlog=DEFAULT_BACKLOG)`` opens the pair in raw mode (no echo, no
    line-end translation); :attr:`device` is the name of the terminal to read (``/dev/pts/N``);
    with ``link`` a symbolic link at that path points to it (replacing an existing link, never a
    file) and is removed by :meth:`close`. :meth:`send` queues an epoch for the writer thread
    (module docstring).
    """

    def __init__(self, link: str | None = None, backlog: int = DEFAULT_BACKLOG) -> None:
        import tty

        self._master, self._slave = os.openpty()
        tty.setraw(self._slave)  # the reader sees the bytes as sent: <CR><LF> stays
        os.set_blocking(self._master, False)
        self.device = os.ttyname(self._slave)
        self.backlog = backlog
        self.dropped = 0
        self.link = link
        self._queue: deque[bytes] = deque()
        self._wake = threading.Condition()
        self._closing = False  # no more epochs: write what is queued, then end
        self._abandon = threading.Event()  # end now, written or not
        if link is not None:
            try:
                check_pty_link(link)
                with contextlib.suppress(FileNotFoundError):
                    os.unlink(link)
                os.symlink(self.device, link)
            except BaseException as exc:
                self._close_fds()
                if isinstance(exc, OSError):
                    from navsense.errors import ConfigError

                    reason = exc.strerror or exc
                    raise ConfigError(f"--nmea-pty {link}: cannot link it ({reason})") from None
                raise
        self._writer = threading.Thread(target=self._write_loop, name="navsense-nmea-pty")
        self._writer.daemon = True
        self._writer.start()

    def send(self, data: bytes) -> None:
        """Queue ``data`` (one epoch); when ``backlog`` epochs wait, the oldest goes."""
        with self._wake:
            if len(self._queue) >= self.backlog:
                self._queue.popleft()
                self.dropped += 1
            self._queue.append(data)
            self._wake.notify()

    def _write_loop(self) -> None:
        import select

        while True:
            with self._wake:
                while not self._queue and not self._closing:
                    self._wake.wait()
                if not self._queue:  # closing and drained
                    return
                view = memoryview(b"".join(self._queue))
                self._queue.clear()
            while view:
                if self._abandon.is_set():
                    return
                try:
                    view = view[os.write(self._master, view) :]
                except BlockingIOError:  # the terminal is full: wait for its reader
                    select.select([], [self._master], [], 0.05)
                except OSError:
                    return

    def _close_fds(self) -> None:
        for fd in (self._master, self._slave):
            with contextlib.suppress(OSError):
                os.close(fd)

    def _unread(self) -> int:
        """Bytes written to the terminal that its reader has not read yet."""
        import fcntl
        import struct
        import termios

        try:
            raw = fcntl.ioctl(self._slave, termios.FIONREAD, b"\0\0\0\0")
        except OSError:
            return 0
        return int(struct.unpack("i", raw)[0])

    def close(self, timeout: float = 0.5) -> None:
        """Write what is queued and let the reader read it (within ``timeout`` s: nobody may be
        reading), then close (closing the terminal discards what is still unread)."""
        import time

        deadline = time.monotonic() + timeout
        with self._wake:
            self._closing = True
            self._wake.notify()
        self._writer.join(timeout)
        self._abandon.set()
        self._writer.join()
        # the kernel moves what was written into the terminal's read buffer a moment later (a
        # work queue: later still on a busy machine), so the terminal counts as read only once
        # it has shown nothing unread for SETTLE_S
        quiet_since = None
        while (now := time.monotonic()) < deadline:
            if self._unread():
                quiet_since = None
            elif quiet_since is None:
                quiet_since = now
            elif now - quiet_since >= SETTLE_S:
                break
            time.sleep(0.01)
        if self.link is not None:
            with contextlib.suppress(OSError):
                if os.path.islink(self.link):
                    os.unlink(self.link)
        self._close_fds()
