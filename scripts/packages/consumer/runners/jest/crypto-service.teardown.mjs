export { globalTeardown as default } from '@crypto-service/testing/global-setup';
