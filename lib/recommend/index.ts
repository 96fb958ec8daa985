export * from "./chains";
export * from "./profile";
export * from "./replay";
export * from "./search";
export * from "./wire";
