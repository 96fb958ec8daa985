export * from "./chains";
export * from "./profile";
export * from "./search";
export * from "./wire";
