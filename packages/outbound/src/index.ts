export { classifyAddress, refusalOf, type AddressClass, type AddressReach, type PrivateTargets } from "./address.ts";
export {
  BlockedTargetError,
  literalTargetProblem,
  outboundRequest,
  outboundUrlProblem,
  type OutboundPolicy,
  type OutboundRequestOptions,
  type ResolvedAddress,
  type Resolver,
} from "./request.ts";
export { createOutboundFetch } from "./fetch.ts";
