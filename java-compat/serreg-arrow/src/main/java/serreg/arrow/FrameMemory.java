package serreg.arrow;

import java.nio.ByteBuffer;
import org.apache.arrow.memory.ArrowBuf;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.ForeignAllocation;
import org.apache.arrow.memory.util.MemoryUtil;

/**
 * Turns OOB buffers of a frame into ArrowBufs. A direct (or memory-mapped) buffer is wrapped in
 * place through the allocator's foreign-allocation API: no copy, and the ArrowBuf keeps the
 * ByteBuffer reachable so the memory outlives the frame's other users. A heap buffer has no
 * stable address and is copied into allocator memory.
 */
final class FrameMemory {
    private FrameMemory() {
    }

    /** Foreign memory owned by a ByteBuffer; releasing it frees nothing (the GC owns the buffer). */
    private static final class ByteBufferAllocation extends ForeignAllocation {
        @SuppressWarnings("unused")
        private final ByteBuffer owner;

        ByteBufferAllocation(ByteBuffer owner) {
            super(owner.remaining(), MemoryUtil.getByteBufferAddress(owner) + owner.position());
            this.owner = owner;
        }

        @Override
        protected void release0() {
            // The memory belongs to the ByteBuffer.
        }
    }

    /** An ArrowBuf over the buffer's remaining bytes, with writer index at its end. */
    static ArrowBuf wrap(BufferAllocator allocator, ByteBuffer buffer) {
        int length = buffer.remaining();
        ArrowBuf buf;
        if (length == 0) {
            buf = allocator.getEmpty();
            buf.getReferenceManager().retain();
            return buf;
        }
        if (buffer.isDirect()) {
            buf = allocator.wrapForeignAllocation(new ByteBufferAllocation(buffer));
        } else {
            buf = allocator.buffer(length);
            buf.setBytes(0, buffer.duplicate());
        }
        buf.writerIndex(length);
        return buf;
    }

    /** A ByteBuffer view of the first {@code length} bytes of an ArrowBuf (no copy). */
    static ByteBuffer view(ArrowBuf buf, long length) {
        if (length == 0) {
            return ByteBuffer.allocate(0);
        }
        return buf.nioBuffer(0, Math.toIntExact(length));
    }
}
