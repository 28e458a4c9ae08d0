package serreg.bench;

import example.Point;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.msgpack.core.MessageBufferPacker;
import org.msgpack.core.MessageFormat;
import org.msgpack.core.MessagePack;
import org.msgpack.core.MessageUnpacker;
import org.msgpack.core.buffer.ArrayBufferInput;

/**
 * msgpack-java (msgpack-core) used as a tuned hand-written codec would use it: one packer reused
 * across calls ({@code clear()}), one unpacker reset onto each input, a walker over Map / List /
 * Long / Double / String / Boolean for the dynamic payloads, and schema-aware code for the two
 * typed ones (a Point is the array [x, y, label], as serreg's example serializer writes it; the
 * double array is one bin of its little-endian bytes, decoded as a view of the input).
 */
final class MsgpackCodec implements Codec {
    private final String payload;
    private final MessageBufferPacker packer = MessagePack.newDefaultBufferPacker();
    private final ArrayBufferInput input = new ArrayBufferInput(new byte[0]);
    private final MessageUnpacker unpacker = MessagePack.newDefaultUnpacker(input);

    MsgpackCodec(String payload) {
        this.payload = payload;
    }

    @Override
    public Object adapt(String payload, Object value) {
        return value instanceof double[] d ? Payloads.littleEndian(d) : value;
    }

    @Override
    public byte[] encode(Object value) {
        try {
            packer.clear();
            if (value instanceof ByteBuffer b) {
                packer.packBinaryHeader(b.remaining());
                packer.writePayload(b.array(), b.arrayOffset() + b.position(), b.remaining());
            } else {
                write(value);
            }
            return packer.toByteArray();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void write(Object v) throws IOException {
        if (v == null) {
            packer.packNil();
        } else if (v instanceof Long l) {
            packer.packLong(l);
        } else if (v instanceof String s) {
            packer.packString(s);
        } else if (v instanceof Double d) {
            packer.packDouble(d);
        } else if (v instanceof Boolean b) {
            packer.packBoolean(b);
        } else if (v instanceof List<?> list) {
            packer.packArrayHeader(list.size());
            for (Object item : list) {
                write(item);
            }
        } else if (v instanceof Map<?, ?> map) {
            packer.packMapHeader(map.size());
            for (Map.Entry<?, ?> e : map.entrySet()) {
                write(e.getKey());
                write(e.getValue());
            }
        } else if (v instanceof StructPoint p) {
            packer.packArrayHeader(3);
            packer.packLong(p.x());
            packer.packLong(p.y());
            packer.packLong(p.z());
        } else if (v instanceof StructReading r) {
            packer.packArrayHeader(4);
            packer.packLong(r.id());
            packer.packDouble(r.value());
            packer.packFloat(r.weight());
            packer.packBoolean(r.valid());
        } else if (v instanceof StructLabelPoint p) {
            packer.packArrayHeader(3);
            packer.packDouble(p.x());
            packer.packDouble(p.y());
            packer.packString(p.label());
        } else if (v instanceof Point p) {
            packer.packArrayHeader(3);
            packer.packDouble(p.x());
            packer.packDouble(p.y());
            packer.packString(p.label());
        } else {
            throw new IllegalArgumentException("no msgpack mapping for " + v.getClass());
        }
    }

    @Override
    public Object decode(byte[] frame) {
        try {
            input.reset(frame);
            unpacker.reset(input);
            return switch (payload) {
                case "doubles1M" -> {
                    int n = unpacker.unpackBinaryHeader();
                    int at = (int) unpacker.getTotalReadBytes();
                    unpacker.readPayloadAsReference(n);
                    yield ByteBuffer.wrap(frame, at, n).slice();
                }
                case "points1k" -> readPoints();
                case "structs1k" -> readStructPoints();
                case "structsFloat1k" -> readStructReadings();
                case "pointStructs1k" -> readStructLabelPoints();
                default -> read();
            };
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private List<Point> readPoints() throws IOException {
        int n = unpacker.unpackArrayHeader();
        List<Point> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            unpacker.unpackArrayHeader();
            out.add(new Point(unpacker.unpackDouble(), unpacker.unpackDouble(), unpacker.unpackString()));
        }
        return out;
    }

    private List<StructPoint> readStructPoints() throws IOException {
        int n = unpacker.unpackArrayHeader();
        List<StructPoint> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            unpacker.unpackArrayHeader();
            out.add(new StructPoint(unpacker.unpackLong(), unpacker.unpackLong(), unpacker.unpackLong()));
        }
        return out;
    }

    private List<StructReading> readStructReadings() throws IOException {
        int n = unpacker.unpackArrayHeader();
        List<StructReading> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            unpacker.unpackArrayHeader();
            out.add(new StructReading(unpacker.unpackLong(), unpacker.unpackDouble(), unpacker.unpackFloat(),
                    unpacker.unpackBoolean()));
        }
        return out;
    }

    private List<StructLabelPoint> readStructLabelPoints() throws IOException {
        int n = unpacker.unpackArrayHeader();
        List<StructLabelPoint> out = new ArrayList<>(n);
        for (int i = 0; i < n; i++) {
            unpacker.unpackArrayHeader();
            out.add(new StructLabelPoint(unpacker.unpackDouble(), unpacker.unpackDouble(), unpacker.unpackString()));
        }
        return out;
    }

    private Object read() throws IOException {
        MessageFormat f = unpacker.getNextFormat();
        switch (f.getValueType()) {
            case NIL:
                unpacker.unpackNil();
                return null;
            case BOOLEAN:
                return unpacker.unpackBoolean();
            case INTEGER:
                return unpacker.unpackLong();
            case FLOAT:
                return unpacker.unpackDouble();
            case STRING:
                return unpacker.unpackString();
            case ARRAY: {
                int n = unpacker.unpackArrayHeader();
                List<Object> list = new ArrayList<>(n);
                for (int i = 0; i < n; i++) {
                    list.add(read());
                }
                return list;
            }
            case MAP: {
                int n = unpacker.unpackMapHeader();
                Map<Object, Object> map = new LinkedHashMap<>();
                for (int i = 0; i < n; i++) {
                    Object k = read();
                    map.put(k, read());
                }
                return map;
            }
            default:
                throw new IllegalArgumentException("unexpected msgpack format " + f);
        }
    }
}
