import type { OutgoingMail } from '@floe/mail';

// The texts of the mails identity sends.

export function signupCodeMail(to: string, code: string, minutes: number): OutgoingMail {
  return {
    to,
    subject: `Your Floe sign-up code: ${code}`,
    text: `Your sign-up code is ${code}.\n\nEnter it within ${minutes} minutes to create your account. If you did not ask for it, ignore this mail: nothing is created without the code.\n`,
  };
}

export function recoveryCodeMail(to: string, code: string, minutes: number): OutgoingMail {
  return {
    to,
    subject: `Your Floe recovery code: ${code}`,
    text: `Your recovery code is ${code}.\n\nEnter it within ${minutes} minutes to get a new API key for your account; your other keys keep working. If you did not ask for it, ignore this mail.\n`,
  };
}

export function linkCodeMail(to: string, code: string, minutes: number, provider: string): OutgoingMail {
  return {
    to,
    subject: `Your Floe code to link ${provider}: ${code}`,
    text: `Someone signed in with ${provider} as ${to}, and a Floe account with this address exists. Your code is ${code}.\n\nEnter it within ${minutes} minutes to link the two, so you can sign in to this account with ${provider} from now on. If it was not you, ignore this mail: nothing is linked without the code.\n`,
  };
}

export function welcomeLinkMail(to: string, link: string, days: number): OutgoingMail {
  return {
    to,
    subject: 'Set your Floe password',
    text: `Welcome to Floe.\n\nSet your password here to finish creating your account (the link works for ${days} days, once):\n\n${link}\n\nIf you did not sign up, ignore this mail: nothing is created without it.\n`,
  };
}

export function resetLinkMail(to: string, link: string, minutes: number): OutgoingMail {
  return {
    to,
    subject: 'Reset your Floe password',
    text: `Someone (we hope you) asked to reset the password of your Floe account.\n\nChoose a new password here (the link works for ${minutes} minutes, once):\n\n${link}\n\nIf it was not you, ignore this mail: your password stays as it is.\n`,
  };
}

export function passwordChangedMail(to: string, how: 'reset' | 'change'): OutgoingMail {
  return {
    to,
    subject: 'Your Floe password was changed',
    text: `The password of your Floe account was ${how === 'reset' ? 'reset; every session was signed out' : 'changed; your other sessions were signed out'}.\n\nIf this was not you, reset it now from the sign-in page and revoke your API keys.\n`,
  };
}
