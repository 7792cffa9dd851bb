// Vocabulary of the generated data: short lists, so records look plausible and stay cheap to build.

export const companyNames = [
  'Van Dijk',
  'De Vries',
  'Jansen',
  'Bakker',
  'Visser',
  'Smit',
  'Meijer',
  'Mulder',
  'Bos',
  'Vos',
  'Peters',
  'Hendriks',
  'Dekker',
  'Brouwer',
  'Koster',
  'Schouten',
] as const;
export const companyKinds = [
  'Transport',
  'Logistics',
  'Foods',
  'Retail',
  'Trading',
  'Bouw',
  'Agro',
  'Pharma',
] as const;
export const legalForms = ['BV', 'NV', 'GmbH', 'Ltd', 'VOF'] as const;
export const firstNames = [
  'Anna',
  'Bram',
  'Chris',
  'Daan',
  'Eva',
  'Femke',
  'Gijs',
  'Hanna',
  'Ivo',
  'Julia',
  'Kees',
  'Lotte',
  'Milan',
  'Noor',
  'Olaf',
  'Pien',
] as const;
export const roles = ['planner', 'accounts payable', 'warehouse', 'director', 'customer service'] as const;
export const streets = [
  'Hoofdstraat',
  'Kerkstraat',
  'Industrieweg',
  'Havenweg',
  'Stationsplein',
  'Dorpsstraat',
  'Marktplein',
  'Energieweg',
] as const;
export const cities = [
  { city: 'Amsterdam', country: 'NL', latitude: 52.37, longitude: 4.89 },
  { city: 'Rotterdam', country: 'NL', latitude: 51.92, longitude: 4.48 },
  { city: 'Utrecht', country: 'NL', latitude: 52.09, longitude: 5.12 },
  { city: 'Antwerpen', country: 'BE', latitude: 51.22, longitude: 4.4 },
  { city: 'Duisburg', country: 'DE', latitude: 51.43, longitude: 6.76 },
  { city: 'Lille', country: 'FR', latitude: 50.63, longitude: 3.06 },
] as const;
export const categories = ['key account', 'retail', 'wholesale', 'cold chain', 'hazmat', 'express'] as const;
export const products = [
  { code: 'FTL', description: 'Full truck load' },
  { code: 'LTL', description: 'Part load' },
  { code: 'PAL', description: 'Pallet transport' },
  { code: 'WAIT', description: 'Waiting time' },
  { code: 'FUEL', description: 'Fuel surcharge' },
  { code: 'TOLL', description: 'Toll costs' },
] as const;
export const notes = [
  '',
  '',
  'Payment within 30 days',
  'Reverse charge',
  'Thank you for your business',
  'Ref. framework agreement',
] as const;
export const currencies = ['EUR', 'EUR', 'EUR', 'EUR', 'USD', 'GBP'] as const;
export const vatRates = [21, 21, 9, 0] as const;
