/**
 * A stream read on a fiber of its own, into a queue of `capacity` elements ahead of its reader
 * (up to as many again taken from the queue together and not yet handed out).
 *
 * Besides reading ahead (a file's next read is in flight while this thread migrates), it keeps
 * the input's finalizers (a file closed at its end, a gunzip's fibers stopped) off the fiber that
 * pulls the chunks. In Effect 3 (3.22) that matters: when a finalizer added with `addFinalizer`
 * (every `acquireRelease`) ends, the FiberRefs that differ between the fiber that added it and
 * the fiber that runs it are set back to the latter's values from before, the fiber's
 * interruption among them, so an interruption that arrives while it runs can be lost (seen on a
 * read-ahead buffer's fibers, whose interruption differs from the puller's). On the producer
 * fiber of an ordered `Stream.mapEffect({ concurrency })` that is a hang: once the stream fails
 * (a worker that stopped, say), the producer, never told to stop, forks its next element into
 * the closed scope and waits for ever for that element to start. Pulling from a queue runs no
 * finalizer.
 */
import { Effect, Queue, Scope, Stream, type Take } from "effect"

export const readAhead = <A, E, R>(stream: Stream.Stream<A, E, R>, capacity: number): Stream.Stream<A, E, R> =>
  Stream.unwrapScoped(
    Effect.gen(function* () {
      const queue = yield* Queue.bounded<Take.Take<A, E>>(capacity)
      yield* Effect.forkScoped(Stream.runIntoQueue(stream, queue))
      // Added after the fork, so run before the reader is interrupted and awaited: a reader that
      // missed its interruption (see above) while waiting to offer stops at the shutdown. Added to
      // the scope itself, not with `addFinalizer`, whose restoring of FiberRefs is the trouble.
      yield* Scope.addFinalizer(yield* Effect.scope, Queue.shutdown(queue))
      return Stream.flattenTake(Stream.fromQueue(queue))
    })
  )
