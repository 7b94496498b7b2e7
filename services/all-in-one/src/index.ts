export { composeCrux, startAllInOne, type RunningCrux } from "./all-in-one.ts";
export { allInOneConfigSchema, type AllInOneConfig } from "./config.ts";
