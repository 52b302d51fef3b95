/** Vite bundles CSS imported from the entry; TypeScript only needs to know the import exists. */
declare module '*.css';
