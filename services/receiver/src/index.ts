export { createReceiver, type Receiver, type ReceiverDeps } from "./receiver.ts";
export { receiverConfigSchema, type ReceiverConfig } from "./config.ts";
export { createIngestPipeline, type IngestOutcome, type Logger } from "./ingest.ts";
