package example;

/** The custom class of the cross-language example: registered as "example.Point" in Java and Python. */
public record Point(double x, double y, String label) {
}
