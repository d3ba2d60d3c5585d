export { scopeStoredBytes } from '@floe/db/usage';
