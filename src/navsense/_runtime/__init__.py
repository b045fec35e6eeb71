"""navsense's process and memory machinery (private): nothing here computes a sensor reading.

=================  ==============================================================================
module             job
=================  ==============================================================================
``machine``        the cores this process may use, and the threads and worker processes sized
                   from them
``worker``         the one worker-process protocol (pipes, end of stream, errors), used by
                   ``navsense simulate``'s forked model worker and by SensorStream's worker
``transport``      how truth crosses to a worker: shared-memory slots for chunks, nested lists
                   for single steps
``memory``         the C allocator's thresholds, Arrow's pool on the C heap, the garbage
                   collector paused while rows are built
``process``        process-wide settings of the command: one BLAS thread, the exit without the
                   interpreter's teardown
``console``        the ``navsense`` console script: the settings, then :func:`navsense.cli.main`
=================  ==============================================================================

Importing a module here (``console`` aside) changes no process setting and imports no model.
The sensor models and the geodesy hold none of this machinery.
"""
