export * from "./policies";
export * from "./passes";
export * from "./boundaries";
export * from "./chains";
export * from "./traces";
export * from "./originals";
export * from "./rollups";
export * from "./access";
