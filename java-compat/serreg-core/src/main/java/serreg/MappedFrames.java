package serreg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.MappedByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * Frames in files, read in place: the twin of Python's {@code serreg.dump} / {@code serreg.load}.
 *
 * <p>{@link #dump} writes the frame into a new file piece by piece with a gathering write (header,
 * in-band, each out-of-band buffer at its 64-byte-aligned offset, straight from the value's own
 * buffers: no frame-sized copy on the heap), then renames it to {@code path}: the file at
 * {@code path} is always whole, and a file someone has mapped is never changed or shortened in
 * place by a later dump. (Writing through a read-write mapping instead took 2.9x as long for 1 GB
 * into /dev/shm, 6.2 s against 2.1 s, a page fault per 4 KiB page; docs/BENCHMARKS.md.)
 *
 * <p>{@link #load} checks the file's size against the frame header (and {@link Limits#maxFrameSize})
 * before mapping it, maps it read-only and deserializes the mapping: an {@code NDArray}'s data and
 * an Arrow vector's buffers (serreg-arrow wraps a direct buffer as a foreign allocation) are views
 * of the mapped file, never copies. A truncated or grown file is a {@link FrameFormatException}.
 * Loading is untrusted unless told otherwise (a file is memory another process can write), as
 * in Python; the registry's limits hold. The mapping lives while any view of it is reachable. A file shortened in place by another
 * process after mapping makes a later read of a page past its new end fail; the JVM turns that
 * fault into an {@link InternalError} in the reading thread rather than a crash. With a key the
 * frame is verified and decoded from a private heap copy (docs/FORMAT.md section 4.2). Frames
 * larger than 2 GiB - 1 are refused (a {@link ByteBuffer} is indexed by int).
 */
public final class MappedFrames {
    /** The prefix of the temporary files a dump writes before renaming (Python's serreg.files uses the same). */
    static final String TEMPORARY_PREFIX = ".tmp-";

    private MappedFrames() {
    }

    /** Writes {@code value}'s frame into {@code path} with the default registry; returns its length. */
    public static long dump(Object value, Path path) {
        return dump(SerializerRegistry.getDefault(), value, path, null);
    }

    /**
     * Writes {@code value}'s frame into the file {@code path} (replaced whole).
     *
     * @param registry the registry that serializes the value
     * @param value the value
     * @param path the file to write
     * @param key null for an unsigned frame, else the signing key (at least 16 bytes)
     * @return the frame's length in bytes
     */
    public static long dump(SerializerRegistry registry, Object value, Path path, byte[] key) {
        SerializationResult result = key == null ? registry.serialize(value) : registry.serialize(value, key);
        writeFile(result, path, false);
        return result.frameLength();
    }

    /** Writes a result's frame into a temporary file beside {@code path}, then renames it. */
    static void writeFile(SerializationResult result, Path path, boolean readOnly) {
        long length = result.frameLength();
        if (length > Integer.MAX_VALUE) {
            throw new SerializationException("a frame of " + length + " bytes is too large to map in Java (at most "
                    + Integer.MAX_VALUE + ")");
        }
        Path target = path.toAbsolutePath();
        Path temporary = null;
        try {
            temporary = Files.createTempFile(target.getParent(), TEMPORARY_PREFIX, "");
            try (FileChannel channel = FileChannel.open(temporary, StandardOpenOption.WRITE)) {
                result.writeTo(channel); // a gathering write of the value's own buffers
            }
            if (readOnly) {
                Files.setPosixFilePermissions(temporary, PosixFilePermissions.fromString("r--------"));
            }
            Files.move(temporary, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
            temporary = null;
        } catch (IOException e) {
            throw new UncheckedIOException("writing a serreg frame into " + path + " failed", e);
        } finally {
            if (temporary != null) {
                try {
                    Files.deleteIfExists(temporary);
                } catch (IOException ignored) {
                    // the next writer's cleanup removes it
                }
            }
        }
    }

    /** Loads the frame file {@code path} in place, untrusted, with the default registry and limits. */
    public static Object load(Path path) {
        return load(SerializerRegistry.getDefault(), path, null, false);
    }

    /**
     * Loads the frame file {@code path} untrusted (a file is memory another process can write):
     * mapped read-only, its buffers views of the mapping.
     *
     * @param registry the registry that deserializes it
     * @param path the file
     * @param key null, or the key the frame must be signed with (then decoded from a private copy)
     * @return the value
     */
    public static Object load(SerializerRegistry registry, Path path, byte[] key) {
        return load(registry, path, key, false);
    }

    /**
     * Loads the frame file {@code path}: mapped read-only, its buffers views of the mapping.
     *
     * @param registry the registry that deserializes it (its limits hold)
     * @param path the file
     * @param key null, or the key the frame must be signed with (then decoded from a private copy)
     * @param trusted true only for a file from a writer you trust (docs/FORMAT.md section 4.4)
     * @return the value
     */
    public static Object load(SerializerRegistry registry, Path path, byte[] key, boolean trusted) {
        return read(registry, map(path, registry.limits(), -1), key, trusted);
    }

    static Object read(SerializerRegistry registry, ByteBuffer mapping, byte[] key, boolean trusted) {
        return key == null ? registry.deserialize(mapping, registry.limits(), trusted)
                : registry.deserialize(mapping, key, trusted);
    }

    /**
     * Maps the frame file {@code path} read-only after checking its size against the frame header.
     *
     * @param path the file
     * @param limits the limits the frame's length is checked against
     * @param expectedSize the size the file must have (a shared-memory handle records it), or -1
     * @return the mapping, ready for {@link SerializerRegistry#deserialize(ByteBuffer)}
     */
    public static MappedByteBuffer map(Path path, Limits limits, long expectedSize) {
        try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
            long size = channel.size();
            if (expectedSize >= 0 && size != expectedSize) {
                throw new FrameFormatException(path + " holds " + size + " bytes, but its frame was written with "
                        + expectedSize + ": another process shortened, grew or replaced it; nothing was mapped",
                        Math.min(size, expectedSize));
            }
            ByteBuffer header = ByteBuffer.allocate(32).order(ByteOrder.LITTLE_ENDIAN);
            while (header.hasRemaining() && channel.read(header, header.position()) > 0) {
                // pread until the header is full or the file ends
            }
            checkHeader(path, header.flip(), size, limits);
            return channel.map(FileChannel.MapMode.READ_ONLY, 0, size);
        } catch (IOException e) {
            throw new UncheckedIOException("mapping the serreg frame " + path + " failed", e);
        }
    }

    private static void checkHeader(Path path, ByteBuffer header, long size, Limits limits) {
        if (size < 32 || header.remaining() < 32) {
            throw new FrameFormatException(path + " holds " + size
                    + " bytes, too short for a serreg frame's 32-byte header (truncated, or not a frame)",
                    Math.min(size, header.remaining()));
        }
        if (header.getInt(0) != 0x47455253) { // "SREG" read little-endian
            throw new FrameFormatException(path + " is not a serreg frame: it does not start with \"SREG\"", 0);
        }
        long total = header.getLong(24);
        if (Long.compareUnsigned(total, limits.maxFrameSize()) > 0) {
            throw new LimitExceededException("the frame in " + path + " is " + Long.toUnsignedString(total)
                    + " bytes, more than maxFrameSize=" + limits.maxFrameSize()
                    + "; raise it with Limits.withMaxFrameSize(...) if such frames are expected", 24);
        }
        if (total != size) {
            throw new FrameFormatException(path + " holds " + size + " bytes, but its frame header says the frame is "
                    + Long.toUnsignedString(total) + " bytes: the file is "
                    + (Long.compareUnsigned(total, size) > 0 ? "truncated" : "followed by other data")
                    + "; nothing was mapped", 24);
        }
        if (size > Integer.MAX_VALUE) {
            throw new LimitExceededException(path + " holds a frame of " + size
                    + " bytes; Java maps frames of at most " + Integer.MAX_VALUE + " bytes", 24);
        }
    }
}
