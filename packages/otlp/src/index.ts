// Public surface of @crux/otlp: decoding (decode/) and normalization (normalize/).
export {};
