/**
 * What lets an export in before its body is read: the intake gate (closed
 * until the database is reachable and its schema checked) and the in-flight
 * byte budget. A request's memory grows with its body (a 30 MB protobuf body
 * cost ~270 MB of heap once decoded), so a count of requests alone does not
 * bound memory: bytes do.
 */
import { NotReadyError, ThrottledError } from "./errors.ts";

export class IntakeGate {
  private reason: string | null;

  constructor(closedReason: string | null = null) {
    this.reason = closedReason;
  }

  get isOpen(): boolean {
    return this.reason === null;
  }

  /** Why exports are refused, or null when they are accepted. */
  get closedReason(): string | null {
    return this.reason;
  }

  /** Refuse exports (retryable 503) saying why, e.g. "waiting for the database". */
  close(reason: string): void {
    this.reason = reason;
  }

  open(): void {
    this.reason = null;
  }

  /** Throws NotReadyError while closed. */
  check(): void {
    if (this.reason !== null) throw new NotReadyError(`the receiver is starting (${this.reason}); retry later`);
  }
}

/**
 * Request bytes in flight: the body as received plus what it inflates to, held
 * from the moment they are known (Content-Length, else as chunks arrive) until
 * the answer is sent. A request is refused once the sum would pass the limit,
 * except a request alone: the body limit bounds it, and refusing it would
 * refuse it forever.
 */
export class ByteBudget {
  private used = 0;

  constructor(
    readonly limit: number,
    private readonly onChange: (bytesInFlight: number) => void = () => {},
  ) {}

  get inUse(): number {
    return this.used;
  }

  /** True when nothing more can be admitted until something is released. */
  get full(): boolean {
    return this.used >= this.limit;
  }

  lease(): ByteLease {
    return new ByteLease(this);
  }

  /** @internal used by ByteLease */
  add(n: number): void {
    this.used += n;
    this.onChange(this.used);
  }

  refusal(): ThrottledError {
    return new ThrottledError("inflight_bytes", `too many request bytes in flight (limit ${this.limit}, CRUX_MAX_INFLIGHT_BYTES); retry later`);
  }
}

/** One request's share of the budget; release() returns all of it (idempotent). */
export class ByteLease {
  private held = 0;
  private released = false;

  constructor(private readonly budget: ByteBudget) {}

  get bytes(): number {
    return this.held;
  }

  /** Adds n bytes to this request; false (and nothing added) when that would pass the limit while other requests hold bytes. */
  tryGrow(n: number): boolean {
    if (this.released) return false;
    const others = this.budget.inUse - this.held;
    if (others > 0 && this.budget.inUse + n > this.budget.limit) return false;
    this.held += n;
    this.budget.add(n);
    return true;
  }

  /** As tryGrow, but throws ThrottledError (429 + Retry-After) when refused. */
  grow(n: number): void {
    if (!this.tryGrow(n)) throw this.budget.refusal();
  }

  /** Returns n bytes early (e.g. a failed decompression attempt). */
  shrink(n: number): void {
    const k = Math.min(n, this.held);
    this.held -= k;
    this.budget.add(-k);
  }

  release(): void {
    if (this.released) return;
    this.released = true;
    this.budget.add(-this.held);
    this.held = 0;
  }
}
