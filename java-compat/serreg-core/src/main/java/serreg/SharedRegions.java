package serreg;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.regex.Pattern;

/**
 * Values in shared memory, handed between processes (Java or Python) by a small handle: the twin of
 * Python's {@code serreg.shm}.
 *
 * <p>A region is a frame file named {@code region-<writer pid>-<32 hex digits>} in the user's region
 * directory: {@code $SERREG_SHM_DIR/serreg-<uid>} if that variable is set, else
 * {@code /dev/shm/serreg-<uid>}, else the same under {@code java.io.tmpdir}, as in Python. A
 * {@link Handle} is the name and the size; {@code serreg.shm.Handle(name, size)} in Python reads a
 * region Java wrote, and {@link #get} reads one Python wrote, in place (through
 * {@link MappedFrames#map}: size checked against the handle and the header before mapping, so a
 * shortened region is a {@link FrameFormatException}).
 *
 * <p>Lifetime: the name lives until {@link #release}; the memory while any view of the mapping is
 * reachable. Java does not clean up regions itself: Python's {@code put} and {@code get} remove
 * those whose writer process is gone (Java's pid counts like Python's) after a grace period.
 * Python readers hold a shared {@code flock} while they have a region mapped; Java's file locks are
 * POSIX record locks, which {@code flock} does not see, so a Java reader does not keep the name alive,
 * only the memory it maps, which removing the name never invalidates. {@link #get} is untrusted
 * by default, as in Python (a region is memory another process wrote); the registry's limits hold.
 */
public final class SharedRegions {
    static final String DIRECTORY_VARIABLE = "SERREG_SHM_DIR";
    private static final Pattern NAME = Pattern.compile("region-([0-9]{1,10})-[0-9a-f]{32}");
    private static final SecureRandom RANDOM = new SecureRandom();

    private SharedRegions() {
    }

    /**
     * The name and size of a region.
     *
     * @param name {@code region-<pid>-<32 hex digits>}
     * @param size the frame's length in bytes
     */
    public record Handle(String name, long size) {
        /** Checks the name (it must not name a path) and the size. */
        public Handle {
            if (name == null || !NAME.matcher(name).matches()) {
                throw new IllegalArgumentException("not a serreg shared-memory region name: " + name);
            }
            if (size < 0) {
                throw new IllegalArgumentException("a region size is non-negative, not " + size);
            }
        }

        /** @return the id of the process that wrote the region */
        public long writerPid() {
            var m = NAME.matcher(name);
            m.matches();
            return Long.parseLong(m.group(1));
        }
    }

    private static volatile Path directory;

    /** @return the directory of this user's regions (created, mode 0700, on first use) */
    public static Path directory() {
        Path known = directory;
        if (known != null && Files.isDirectory(known)) {
            return known;
        }
        known = findDirectory();
        directory = known;
        return known;
    }

    private static Path findDirectory() {
        String base = System.getenv(DIRECTORY_VARIABLE);
        Path root;
        if (base != null && !base.isEmpty()) {
            root = Path.of(base);
        } else if (Files.isDirectory(Path.of("/dev/shm")) && Files.isWritable(Path.of("/dev/shm"))) {
            root = Path.of("/dev/shm");
        } else {
            root = Path.of(System.getProperty("java.io.tmpdir"));
        }
        try {
            Path dir = root.resolve("serreg-" + uid());
            if (!Files.isDirectory(dir)) {
                Files.createDirectories(root);
                try {
                    Files.createDirectory(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
                } catch (java.nio.file.FileAlreadyExistsException raced) {
                    // another process made it
                }
            }
            return dir;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot make the shared-memory region directory under " + root, e);
        }
    }

    private static int uid() throws IOException {
        try {
            return (Integer) Files.getAttribute(Path.of("/proc/self"), "unix:uid");
        } catch (UnsupportedOperationException | IOException e) {
            Path probe = Files.createTempFile("serreg-uid-", "");
            try {
                return (Integer) Files.getAttribute(probe, "unix:uid");
            } finally {
                Files.deleteIfExists(probe);
            }
        }
    }

    /**
     * Writes {@code value}'s frame into a new region (a gathering write, renamed into place when whole,
     * then read-only).
     *
     * @param registry the registry that serializes it
     * @param value the value
     * @return the region's handle
     */
    public static Handle put(SerializerRegistry registry, Object value) {
        SerializationResult result = registry.serialize(value);
        byte[] token = new byte[16];
        RANDOM.nextBytes(token);
        String name = "region-" + ProcessHandle.current().pid() + "-" + HexFormat.of().formatHex(token);
        MappedFrames.writeFile(result, directory().resolve(name), true);
        return new Handle(name, result.frameLength());
    }

    /**
     * The value in a region, untrusted, its buffers views of the shared memory (no copy).
     *
     * @param registry the registry that deserializes it (its limits hold)
     * @param handle the region
     * @return the value
     */
    public static Object get(SerializerRegistry registry, Handle handle) {
        return get(registry, handle, false);
    }

    /**
     * The value in a region, its buffers views of the shared memory (no copy).
     *
     * @param registry the registry that deserializes it (its limits hold)
     * @param handle the region
     * @param trusted true only for a region from a writer you trust
     * @return the value
     */
    public static Object get(SerializerRegistry registry, Handle handle, boolean trusted) {
        Path path = directory().resolve(handle.name());
        if (!Files.exists(path)) {
            throw new DeserializationException("shared-memory region " + handle.name() + " no longer exists: it was"
                    + " released, or its writer (process " + handle.writerPid() + ") exited before it was read");
        }
        return MappedFrames.read(registry, MappedFrames.map(path, registry.limits(), handle.size()), null, trusted);
    }

    /**
     * Removes a region's name; values already read from it stay valid.
     *
     * @param handle the region
     * @return true if this call removed it
     */
    public static boolean release(Handle handle) {
        try {
            return Files.deleteIfExists(directory().resolve(handle.name()));
        } catch (NoSuchFileException e) {
            return false;
        } catch (IOException e) {
            throw new UncheckedIOException("cannot remove shared-memory region " + handle.name(), e);
        }
    }
}
