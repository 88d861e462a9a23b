export { default } from '@crypto-service/testing/global-setup';
