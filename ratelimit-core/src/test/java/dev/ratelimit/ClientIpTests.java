package dev.ratelimit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class ClientIpTests {

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = "=>", textBlock = """
			fd00:1:2:3::1                        => fd00:1:2:3::/64
			fd00:1:2:3:ffff:ffff:ffff:ffff       => fd00:1:2:3::/64
			FD00:0001:0002:0003:0000:0000:0000:6 => fd00:1:2:3::/64
			[fd00:1:2:3::1]                      => fd00:1:2:3::/64
			fe80::1%eth0                         => fe80::/64
			fe80::1%7                            => fe80::/64
			::1                                  => ::/64
			2001:db8::                           => 2001:db8::/64
			2001:db8:0:1:1:1:1:1                 => 2001:db8:0:1::/64
			::ffff:203.0.113.7                   => 203.0.113.7
			::ffff:cb00:7107                     => 203.0.113.7
			203.0.113.7                          => 203.0.113.7
			::203.0.113.7                        => ::/64
			""")
	void addressesAreTheirNetworkByDefault(String address, String subject) {
		assertThat(ClientIp.DEFAULT.subject(address)).isEqualTo(subject);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = "=>", textBlock = """
			2001:db8:1:2:3:4:5:6      => 128 => 2001:db8:1:2:3:4:5:6
			2001:0db8:0:0:1:0:0:1     => 128 => 2001:db8::1:0:0:1
			2001:db8:0:0:1:0:0:0      => 128 => 2001:db8:0:0:1::
			2001:db8:0:1:0:0:0:1      => 128 => 2001:db8:0:1::1
			2001:db8:1:0:1:0:1:0      => 128 => 2001:db8:1:0:1:0:1:0
			2001:db8:1:2:3:4:5:6      => 48  => 2001:db8:1::/48
			2001:db8:1:2:3:4:5:6      => 56  => 2001:db8:1::/56
			2001:db8:1:2ff:3:4:5:6    => 56  => 2001:db8:1:200::/56
			2001:db8:1:2:3:4:5:6      => 0   => ::/0
			2001:db8:1:2:3:4:5:6      => 1   => ::/1
			ff01::1                   => 1   => 8000::/1
			""")
	void ipv6IsMaskedToItsPrefixAndWrittenCanonically(String address, int prefix, String subject) {
		assertThat(ClientIp.of(32, prefix).subject(address)).isEqualTo(subject);
	}

	@ParameterizedTest(name = "{0}")
	@CsvSource(delimiterString = "=>", textBlock = """
			203.0.113.7          => 24 => 203.0.113.0/24
			203.0.113.7          => 31 => 203.0.113.6/31
			203.0.113.255        => 16 => 203.0.0.0/16
			203.0.113.7          => 0  => 0.0.0.0/0
			::ffff:203.0.113.7   => 24 => 203.0.113.0/24
			""")
	void ipv4IsMaskedToItsPrefix(String address, int prefix, String subject) {
		assertThat(ClientIp.of(prefix, 64).subject(address)).isEqualTo(subject);
	}

	@ParameterizedTest(name = "\"{0}\"")
	@ValueSource(strings = { "unknown", "_hidden", "localhost", "1.2.3", "01.2.3.4", "1.2.3.256", "0x7f.0.0.1",
			"1.2.3.4.5", "fd00::1::2", "fd00:1:2:3:4:5:6:7:8", ".:1", "g::1", "", "２.２.２.２", "fd00::１" })
	void valuesThatAreNotAddressLiteralsAreTheirOwnSubject(String value) {
		assertThat(ClientIp.isAddress(value)).isFalse();
		assertThat(ClientIp.of(8, 8).subject(value)).isEqualTo(value);
	}

	@Test
	void prefixLengthsOutOfRangeAreRefused() {
		assertThatIllegalArgumentException().isThrownBy(() -> ClientIp.of(33, 64)).withMessageContaining("IPv4");
		assertThatIllegalArgumentException().isThrownBy(() -> ClientIp.of(-1, 64)).withMessageContaining("IPv4");
		assertThatIllegalArgumentException().isThrownBy(() -> ClientIp.of(32, 129)).withMessageContaining("IPv6");
		assertThatIllegalArgumentException().isThrownBy(() -> ClientIp.of(32, -1)).withMessageContaining("IPv6");
	}

}
