"""Export of trained policies to TFLite: the app's plain model (float or
quantised), the trainable model for on-device learning, and their checks
against JAX in the LiteRT interpreter."""
