"""A Foxglove WebSocket server with the run's channels (the foxglove-sdk package).

Channels (each message's log time is the run's: start_utc + the row's ``delivery_time_s``):

- the ROS 2 topics of the bag (:mod:`navsense.output.ros2`), the same message types as ``ros2msg``
  schemas and the same CDR payloads, encoded by the bag's own functions: the INS topics of the
  vehicle, ``/gnss/receiver/fix`` (the receiver's fix, with a georeference) and ``/imu/raw``;
  Foxglove shows the fix on its Map panel, /tf in its 3D panel and any field in its Plot panel;
- ``/navsense/<sensor>``: each sensor's rows as JSON, byte for byte the lines of
  ``<sensor>.jsonl`` (every key of every sensor, the magnetometer, barometer and odometer too),
  with a ``jsonschema`` schema named after its message (:func:`row_schema_name`:
  ``navsense.GnssRow``, ``navsense.ImuRow``, ...). Without a schema the SDK advertises a
  channel under a made-up name (``schema-f5wrpOiP``), which is what the Foxglove app showed.

The server advertises the ``time`` capability and broadcasts the run's time at each physics step,
so the Foxglove app's clock follows the run. A message is encoded only for a channel that some
client subscribes to. The SDK sends from its own threads: ``log`` only queues, and each client's
queue holds at most ``backlog`` messages, the oldest dropped when a slow client lets it fill
(the SDK's ``message_backlog_size``). A client that disconnects is forgotten by the SDK.
"""

from __future__ import annotations

import threading
from collections.abc import Iterable, Mapping
from typing import Any

import orjson

from navsense.output.ros2 import TopicSpec, msgdef

__all__ = ["FoxgloveServer", "DEFAULT_FOXGLOVE_PORT", "ROWS_TOPIC_PREFIX", "row_schema_name"]

DEFAULT_FOXGLOVE_PORT = 8765  # the Foxglove app's default for a WebSocket connection
ROWS_TOPIC_PREFIX = "/navsense/"
DEFAULT_BACKLOG = 1024  # messages queued a client (the SDK's default)


def row_schema_name(sensor: str) -> str:
    """The schema name of a sensor's JSON rows: ``navsense.`` + the sensor's name in CamelCase +
    ``Row`` (``gnss`` -> ``navsense.GnssRow``), as a message type is named."""
    return "navsense." + "".join(part.capitalize() for part in sensor.split("_")) + "Row"


def _row_schema(sensor: str) -> bytes:
    """A JSON Schema (draft 2020-12) of one row of ``<sensor>.jsonl``: an object; its keys are
    the sensor's row keys, documented in the outputs reference."""
    return orjson.dumps(
        {
            "$schema": "https://json-schema.org/draft/2020-12/schema",
            "title": row_schema_name(sensor),
            "description": f"one row of {sensor}.jsonl, as navsense writes it",
            "type": "object",
        }
    )


def _import_foxglove():
    try:
        import foxglove
    except ImportError:  # pragma: no cover - the dependency is declared
        from navsense.errors import ConfigError

        raise ConfigError(
            "the Foxglove WebSocket server needs the foxglove-sdk package: "
            "pip install 'navsense[live]' (or --no-foxglove)"
        ) from None
    return foxglove


class _Subscriptions:
    """The foxglove ServerListener that counts each channel's subscribers (SDK threads)."""

    def __init__(self) -> None:
        self._count: dict[int, int] = {}
        self._made: dict[int, int] = {}  # subscriptions made to a channel, ever
        self._lock = threading.Lock()
        self.changed = threading.Condition(self._lock)

    def on_subscribe(self, client: Any, channel: Any) -> None:
        with self._lock:
            self._count[channel.id] = self._count.get(channel.id, 0) + 1
            self._made[channel.id] = self._made.get(channel.id, 0) + 1
            self.changed.notify_all()

    def on_unsubscribe(self, client: Any, channel: Any) -> None:
        with self._lock:
            self._count[channel.id] = max(0, self._count.get(channel.id, 0) - 1)
            self.changed.notify_all()

    def count(self, channel_id: int) -> int:
        return self._count.get(channel_id, 0)

    def made(self, channel_id: int) -> int:
        return self._made.get(channel_id, 0)


class FoxgloveServer:
    """``FoxgloveServer(ros2_topics, sensors, host, port)``: a WebSocket server (port 0: any free
    port, see :attr:`port`) with one channel per ROS 2 topic (TopicSpec) and one JSON channel a
    sensor name. :meth:`log` and :meth:`log_row` publish; :meth:`close` stops the server."""

    def __init__(
        self,
        ros2_topics: Iterable[TopicSpec],
        sensors: Iterable[str],
        *,
        host: str = "127.0.0.1",
        port: int = DEFAULT_FOXGLOVE_PORT,
        backlog: int = DEFAULT_BACKLOG,
        name: str = "navsense",
    ) -> None:
        foxglove = _import_foxglove()
        from foxglove.websocket import Capability

        self._context = foxglove.Context()
        self._subscriptions = _Subscriptions()
        self._channels: dict[str, Any] = {}
        for spec in ros2_topics:
            schema = foxglove.Schema(
                name=spec.msg_type, encoding="ros2msg", data=msgdef(spec.msg_type).encode()
            )
            self._channels[spec.topic] = foxglove.Channel(
                spec.topic, message_encoding="cdr", schema=schema, context=self._context
            )
        for sensor in sensors:
            topic = ROWS_TOPIC_PREFIX + sensor
            schema = foxglove.Schema(
                name=row_schema_name(sensor), encoding="jsonschema", data=_row_schema(sensor)
            )
            self._channels[topic] = foxglove.Channel(
                topic, message_encoding="json", schema=schema, context=self._context
            )
        try:
            self._server = foxglove.start_server(
                name=name,
                host=host,
                port=port,
                capabilities=[Capability.Time],
                server_listener=self._subscriptions,
                context=self._context,
                message_backlog_size=backlog,
            )
        except RuntimeError as exc:  # the SDK's error for a port in use
            from navsense.errors import ConfigError

            raise ConfigError(
                f"--foxglove-port {port}: cannot serve on {host}:{port} ({exc}); "
                "choose another port (0: any free one)"
            ) from None
        self.host = host
        self.port = int(self._server.port)

    @property
    def topics(self) -> list[str]:
        """Every channel's topic, in the order advertised."""
        return list(self._channels)

    def subscribed(self, topic: str) -> bool:
        """True when some client subscribes to ``topic``."""
        return self._subscriptions.count(self._channels[topic].id()) > 0

    def subscriptions_made(self, topic: str) -> int:
        """How many subscriptions to ``topic`` clients have made so far (a latched topic is sent
        again when this grows)."""
        return self._subscriptions.made(self._channels[topic].id())

    def wait_subscribed(self, topics: Iterable[str], timeout: float) -> bool:
        """Wait until every topic has a subscriber (tests, tools); False after ``timeout`` s."""
        ids = [self._channels[t].id() for t in topics]
        with self._subscriptions.changed:
            return self._subscriptions.changed.wait_for(
                lambda: all(self._subscriptions.count(i) > 0 for i in ids), timeout
            )

    def log(self, topic: str, data: bytes, log_ns: int) -> None:
        """Publish one message (CDR or JSON bytes) at log time ``log_ns``; never blocks."""
        self._channels[topic].log(data, log_time=log_ns)

    def log_rows(self, sensor: str, rows: Iterable[Mapping], start_ns: int) -> None:
        """Publish a sensor's rows as JSON (the bytes of its JSONL lines), if subscribed, each at
        log time ``start_ns`` + its ``delivery_time_s``."""
        topic = ROWS_TOPIC_PREFIX + sensor
        if topic not in self._channels or not self.subscribed(topic):
            return
        channel = self._channels[topic]
        for row in rows:
            log_ns = start_ns + round(row["delivery_time_s"] * 1e9)
            channel.log(orjson.dumps(row), log_time=log_ns)

    def broadcast_time(self, t_ns: int) -> None:
        """The run's time to every client (the ``time`` capability)."""
        self._server.broadcast_time(t_ns)

    def close(self) -> None:
        self._server.stop()
        for channel in self._channels.values():
            channel.close()
